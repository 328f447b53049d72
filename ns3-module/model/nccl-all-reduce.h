/*
 * NCCL's ring all-reduce over several channels: the buffer is split evenly over the
 * channels, each channel runs its own ring (its own transport: TCP sockets or an RDMA queue
 * pair) with slice pipelining, and the collective completes when every channel has. With NCCL's
 * flow control a small operation uses fewer channels, as NCCL's getAlgoInfo picks them
 * (NcclSlicing::ChannelsFor). A channel whose transport runs whole all-reduces
 * (RingTransport::RunsWholeAllReduces: the flow engine's whole ring) runs its share there.
 */
#ifndef FLUMEN_NCCL_ALL_REDUCE_H
#define FLUMEN_NCCL_ALL_REDUCE_H

#include "ring-allreduce.h"
#include "ring-transport.h"

#include "ns3/callback.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

class NcclAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /** One transport per channel, each to the next rank. */
    void Setup(const std::vector<Ptr<RingTransport>>& channels, uint32_t rank, uint32_t ranks,
               const RingPacing& pacing);
    /** Starts one all-reduce of `bytes`; `done` runs when this rank holds the result. */
    void Start(uint64_t bytes, Callback<void> done);
    bool IsRunning() const { return m_pending > 0; }
    uint32_t GetChannels() const { return static_cast<uint32_t>(m_rings.size()); }

  protected:
    void DoDispose() override;

  private:
    void ChannelDone();

    std::vector<Ptr<RingTransport>> m_channels;
    std::vector<Ptr<RingAllReduce>> m_rings;
    RingPacing m_pacing;
    uint32_t m_pending = 0;
    Callback<void> m_done;
};

} // namespace ns3

#endif
