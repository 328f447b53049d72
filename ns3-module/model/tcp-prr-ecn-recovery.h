/*
 * ns-3.37's Proportional Rate Reduction (TcpPrrRecovery), with the window reduction that an
 * ECN echo starts (CA_CWR) completed as upstream ns-3 and Linux complete it.
 *
 * In 3.37, once the flight has fallen to ssthresh, each ACK lets out only the bytes it
 * delivered unless it acked a retransmission, which never happens in CWR (nothing was lost);
 * and CWR ends only with an ACK beyond the recovery point. A connection whose message ended
 * during CWR drained its window to the last ACK's bytes: a ring connection (DCTCP, or CUBIC
 * with tcp.ecn, on marking uplinks) then sent its next message a segment per 40 ms delayed
 * ACK, and stopped for good when that last ACK covered a short tail segment (a window below
 * one segment, nothing in flight, no timer: `SendPendingData no segments sent`). Linux counts
 * PRR in packets, so its window never falls below one; and upstream ns-3's PRR (since 3.43)
 * lets out the credit prr_delivered - prr_out, which after the gap between messages is the
 * whole ssthresh - flight. Here, in CWR with the flight at or below ssthresh, the window is
 * at least ssthresh. Loss recovery (CA_RECOVERY) is 3.37's, unchanged: runs without ECN never
 * enter CWR and stay bit for bit what they were.
 */
#ifndef FLUMEN_TCP_PRR_ECN_RECOVERY_H
#define FLUMEN_TCP_PRR_ECN_RECOVERY_H

#include "ns3/tcp-prr-recovery.h"

namespace ns3
{

class TcpPrrEcnRecovery : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override;
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes) override;
    Ptr<TcpRecoveryOps> Fork() override;
};

} // namespace ns3

#endif
