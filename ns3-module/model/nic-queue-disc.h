/*
 * A host NIC's egress shared by RDMA and the kernel's TCP/IP stack. A ConnectX NIC serves
 * its send queues round robin, so here RoCE packets and all other packets wait in two
 * classes served by deficit round robin (byte-fair; RdmaWeight scales RDMA's quantum).
 * Either class alone gets the whole link. RDMA never overfills its class: the NIC pulls a
 * queue pair's next packet only while the class holds less than the RdmaNic's backpressure
 * threshold (RDMA is not dropped at its own NIC). PFC pauses the RDMA class only (its
 * priority), the TCP/IP class keeps going.
 */
#ifndef FLUMEN_NIC_QUEUE_DISC_H
#define FLUMEN_NIC_QUEUE_DISC_H

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

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

    /** Bytes waiting in the RDMA class. */
    uint32_t GetRdmaBytes() const { return m_bytes[kRdma]; }
    /** Bytes waiting in the TCP/IP class. */
    uint32_t GetHostBytes() const { return m_bytes[kHost]; }

    /** PFC: stop (or resume) sending the RDMA class. */
    void SetRdmaPaused(bool paused);
    bool IsRdmaPaused() const { return m_paused; }
    /** Total time the RDMA class spent paused so far. */
    Time GetPausedTime() const;

  private:
    static constexpr uint32_t kRdma = 0;
    static constexpr uint32_t kHost = 1;

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    bool Eligible(uint32_t c) const;

    uint32_t m_hostBufferBytes;
    uint32_t m_rdmaBufferBytes;
    uint32_t m_quantum;
    double m_rdmaWeight;

    uint32_t m_bytes[2] = { 0, 0 };
    int64_t m_deficit[2] = { 0, 0 };
    uint32_t m_turn = kRdma;
    bool m_turnStarted = false;
    bool m_paused = false;
    Time m_pausedSince;
    Time m_pausedTotal;
    TracedCallback<bool> m_pausedTrace;
};

} // namespace ns3

#endif
