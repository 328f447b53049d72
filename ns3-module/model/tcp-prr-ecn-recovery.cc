#include "tcp-prr-ecn-recovery.h"

#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpPrrEcnRecovery");
NS_OBJECT_ENSURE_REGISTERED(TcpPrrEcnRecovery);

TypeId
TcpPrrEcnRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpPrrEcnRecovery")
                            .SetParent<TcpPrrRecovery>()
                            .SetGroupName("Flumen")
                            .AddConstructor<TcpPrrEcnRecovery>();
    return tid;
}

std::string
TcpPrrEcnRecovery::GetName() const
{
    return "PrrEcnRecovery";
}

void
TcpPrrEcnRecovery::DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes)
{
    TcpPrrRecovery::DoRecovery(tcb, deliveredBytes);
    if (tcb->m_congState == TcpSocketState::CA_CWR && tcb->m_bytesInFlight <= tcb->m_ssThresh
        && tcb->m_cWnd < tcb->m_ssThresh)
    {
        NS_LOG_LOGIC("CWR with the flight " << tcb->m_bytesInFlight << " at or below ssthresh "
                                            << tcb->m_ssThresh << ": window " << tcb->m_cWnd
                                            << " -> ssthresh");
        tcb->m_cWnd = tcb->m_ssThresh;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
}

Ptr<TcpRecoveryOps>
TcpPrrEcnRecovery::Fork()
{
    return CopyObject<TcpPrrEcnRecovery>(this);
}

} // namespace ns3
