/*
 * A host NIC's egress shared by RDMA and the kernel's TCP/IP stack. A ConnectX NIC serves its
 * send queues round robin: the RoCE queue pairs' and the kernel's TCP/IP send queues (one per
 * CPU channel; Linux spreads flows over them). So here RoCE packets wait in one queue and
 * TCP/IP packets in HostTxQueues queues, each flow in its own queue in order of appearance
 * (as threads on different CPUs are), and all are served by deficit round robin (byte-fair
 * per queue; RdmaWeight scales RDMA's quantum). k busy TCP/IP queues beside busy RDMA thus
 * get k/(k+1) of the link: more iperf streams, more share, which is what the testbed's
 * operator saw (more -P threads were needed to reach a requested load beside RDMA).
 * HostTxQueues = 1 is the older model, byte-fair between RDMA and all of TCP/IP.
 * A queue alone gets the whole link. RDMA never overfills its queue: the NIC pulls a queue
 * pair's next packet only while the queue holds less than the RdmaNic's backpressure
 * threshold (RDMA is not dropped at its own NIC). The TCP/IP queues share one tail-drop
 * buffer. PFC pauses the RDMA queue only (its priority); the TCP/IP queues keep going.
 */
#ifndef FLUMEN_NIC_QUEUE_DISC_H
#define FLUMEN_NIC_QUEUE_DISC_H

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class NicQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    NicQueueDisc();
    ~NicQueueDisc() override;

    static constexpr const char* kHostBufferFull = "Host class buffer full";
    static constexpr const char* kRdmaBufferFull = "RDMA class buffer full";

    /** Bytes waiting in the RDMA queue. */
    uint32_t GetRdmaBytes() const { return m_rdmaBytes; }
    /** Bytes waiting in the TCP/IP queues. */
    uint32_t GetHostBytes() const { return m_hostBytes; }

    /** PFC: stop (or resume) sending the RDMA class. */
    void SetRdmaPaused(bool paused);
    bool IsRdmaPaused() const { return m_paused; }
    /** Total time the RDMA class spent paused so far. */
    Time GetPausedTime() const;

  private:
    static constexpr uint32_t kRdma = 0; //!< internal queue 0; TCP/IP queues are 1..HostTxQueues

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    /** The TCP/IP queue of a packet's flow: its flow's queue while it has packets waiting. */
    uint32_t HostQueueOf(Ptr<QueueDiscItem> item);

    uint32_t m_hostBufferBytes;
    uint32_t m_rdmaBufferBytes;
    uint32_t m_quantum;
    double m_rdmaWeight;
    uint32_t m_hostTxQueues;

    uint32_t m_rdmaBytes = 0;
    uint32_t m_hostBytes = 0;
    std::vector<int64_t> m_deficit;  //!< per internal queue
    std::vector<uint32_t> m_packets; //!< per internal queue
    std::deque<uint32_t> m_active;   //!< queues with packets, in round-robin order
    bool m_turnStarted = false;      //!< the front queue has had its quantum this turn
    struct FlowSlot
    {
        uint32_t queue;
        uint32_t packets;
    };
    std::unordered_map<uint32_t, FlowSlot> m_flows; //!< flow hash -> queue, while queued
    uint32_t m_nextQueue = 0;
    bool m_paused = false;
    Time m_pausedSince;
    Time m_pausedTotal;
    TracedCallback<bool> m_pausedTrace;
};

} // namespace ns3

#endif
