/*
 * What the ring collective needs from a transport: an ordered message stream to the next
 * rank and posted receives from the previous rank, as NCCL's send/recv primitives give it.
 * TCP (NCCL's socket transport), RDMA and the flow-level engine implement it.
 *
 * With clear to send (SetClearToSend), a posted receive is also the receiver's grant: the sender
 * puts a message on the wire only once the receive for it is posted (NCCL over InfiniBand/RoCE,
 * src/transport/net_ib.cc: the receiver's ncclIbIrecv writes the sender's FIFO entry, which
 * ncclIbIsend waits for). The socket transport has no such grant; TCP's window stands in.
 */
#ifndef FLUMEN_RING_TRANSPORT_H
#define FLUMEN_RING_TRANSPORT_H

#include "mltcp-aggressiveness.h"

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

struct RingPacing;

class RingTransport : public Object
{
  public:
    static TypeId GetTypeId();

    /** Signature of trace sources that report a message size. */
    typedef void (*BytesTracedCallback)(uint64_t bytes);

    /** Opens the connections; messages sent before they are up wait. */
    virtual void Start() = 0;
    /** Queues a message of this many bytes to the next rank (FIFO). */
    virtual void Send(uint64_t bytes) = 0;
    /**
     * Expects the next message from the previous rank to be this many bytes. The receive
     * callback fires once per posted receive, in order, when all its bytes have arrived
     * (bytes that arrive before the post are kept and count towards it).
     */
    virtual void PostReceive(uint64_t bytes) = 0;

    void SetReceiveCallback(Callback<void, uint64_t> cb) { m_receiveCallback = cb; }
    /**
     * Fires once per message, in order, when the transport is done with the sender's copy of it
     * (NCCL frees the send slot: RDMA, the message is acknowledged; sockets, it is written into
     * them; the flow engine, likewise by transport).
     */
    void SetSendCompleteCallback(Callback<void, uint64_t> cb) { m_sendCompleteCallback = cb; }
    /** Whether messages wait for the receiver's posted receive (ignored where there is none). */
    virtual void SetClearToSend(bool on) {}

    /** Payload bytes handed to the network so far (no headers, no retransmissions). */
    virtual uint64_t GetBytesSent() const = 0;
    /** Payload bytes received from the previous rank so far. */
    virtual uint64_t GetBytesReceived() const = 0;
    /** Whether this rank's all-reduces on this channel run as part of a whole ring that the
     * transport's engine advances itself (WholeAllReduce), not slice by slice. */
    virtual bool RunsWholeAllReduces() const { return false; }
    /** This rank's side of one whole all-reduce of `bytes`, paced as `pacing` says; `done`
     * when it holds the result. */
    virtual void WholeAllReduce(uint64_t bytes, const RingPacing& pacing, Callback<void> done);
    /** Fixes the random streams the transport draws from; returns how many it used. */
    virtual int64_t AssignStreams(int64_t stream) { return 0; }

    /** MLTCP's F for this link's flows, of its bytes sent (the Mltcp attribute; null off). */
    Ptr<MltcpAggressiveness> GetAggressiveness();
    /** The job begins a training iteration: MLTCP's iteration boundary. */
    void StartIteration();

  protected:
    void DoDispose() override;
    void NotifyReceiveComplete(uint64_t bytes);
    void NotifySendComplete(uint64_t bytes);

  private:
    bool m_mltcp = false;
    Ptr<MltcpAggressiveness> m_aggressiveness;
    Callback<void, uint64_t> m_receiveCallback;
    Callback<void, uint64_t> m_sendCompleteCallback;
};

} // namespace ns3

#endif
