// TcpPrrEcnRecovery: ns-3.37's PRR, except that an ECN window reduction (CWR) whose flight has
// fallen to ssthresh leaves a window of ssthresh, not the last ACK's bytes; loss recovery as
// 3.37 has it.
#include "ns3/tcp-prr-ecn-recovery.h"
#include "ns3/tcp-prr-recovery.h"
#include "ns3/tcp-socket-state.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint32_t kMss = 1448;

// A connection that entered a reduction with 20 segments out and ssthresh 10, sent the end of
// its message (2 segments) on the first ACK, then had everything acked, the last ACK covering a
// 1136-byte tail.
Ptr<TcpSocketState>
AfterTheLastAck(Ptr<TcpRecoveryOps> recovery, TcpSocketState::TcpCongState_t state)
{
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = kMss;
    tcb->m_ssThresh = 10 * kMss;
    tcb->m_cWnd = 20 * kMss;
    tcb->m_bytesInFlight = 20 * kMss;
    recovery->EnterRecovery(tcb, 0, 20 * kMss, 0);
    tcb->m_congState = state;
    for (uint32_t acked = 0; acked < 21; ++acked)
    {
        tcb->m_bytesInFlight = tcb->m_bytesInFlight.Get() - kMss;
        recovery->DoRecovery(tcb, kMss);
        if (acked == 0)
        {
            recovery->UpdateBytesSent(2 * kMss);
            tcb->m_bytesInFlight = tcb->m_bytesInFlight.Get() + 2 * kMss;
        }
    }
    tcb->m_bytesInFlight = 0;
    recovery->DoRecovery(tcb, 1136);
    return tcb;
}

} // namespace

TEST(TcpPrrEcnRecovery, AnEcnReductionWithNothingInFlightLeavesSsthresh)
{
    // 3.37's PRR leaves the last ACK's 1136 bytes: below a segment, nothing in flight, a stall.
    Ptr<TcpSocketState> stock
        = AfterTheLastAck(CreateObject<TcpPrrRecovery>(), TcpSocketState::CA_CWR);
    EXPECT_LT(stock->m_cWnd.Get(), kMss);
    Ptr<TcpSocketState> mended
        = AfterTheLastAck(CreateObject<TcpPrrEcnRecovery>(), TcpSocketState::CA_CWR);
    EXPECT_EQ(mended->m_cWnd.Get(), 10 * kMss);
    EXPECT_EQ(mended->m_cWndInfl.Get(), 10 * kMss);
}

TEST(TcpPrrEcnRecovery, LossRecoveryIsThreeThirtySevensPrr)
{
    Ptr<TcpSocketState> stock
        = AfterTheLastAck(CreateObject<TcpPrrRecovery>(), TcpSocketState::CA_RECOVERY);
    Ptr<TcpSocketState> ours
        = AfterTheLastAck(CreateObject<TcpPrrEcnRecovery>(), TcpSocketState::CA_RECOVERY);
    EXPECT_EQ(ours->m_cWnd.Get(), stock->m_cWnd.Get());
    // And while the flight is above ssthresh, CWR too reduces as PRR does.
    for (auto state : { TcpSocketState::CA_CWR, TcpSocketState::CA_RECOVERY })
    {
        Ptr<TcpRecoveryOps> a = CreateObject<TcpPrrRecovery>();
        Ptr<TcpRecoveryOps> b = CreateObject<TcpPrrEcnRecovery>();
        Ptr<TcpSocketState> ta = CreateObject<TcpSocketState>();
        ta->m_segmentSize = kMss;
        ta->m_ssThresh = 10 * kMss;
        ta->m_bytesInFlight = 20 * kMss;
        Ptr<TcpSocketState> tb = CopyObject<TcpSocketState>(ta);
        a->EnterRecovery(ta, 0, 20 * kMss, 0);
        b->EnterRecovery(tb, 0, 20 * kMss, 0);
        ta->m_congState = state;
        tb->m_congState = state;
        ta->m_bytesInFlight = 18 * kMss;
        tb->m_bytesInFlight = 18 * kMss;
        a->DoRecovery(ta, 2 * kMss);
        b->DoRecovery(tb, 2 * kMss);
        EXPECT_EQ(tb->m_cWnd.Get(), ta->m_cWnd.Get()) << state;
    }
}
