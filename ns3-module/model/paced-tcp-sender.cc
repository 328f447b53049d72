#include "paced-tcp-sender.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacedTcpSender");
NS_OBJECT_ENSURE_REGISTERED(PacedTcpSender);

TypeId
PacedTcpSender::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PacedTcpSender")
              .SetParent<Application>()
              .SetGroupName("Flumen")
              .AddConstructor<PacedTcpSender>()
              .AddAttribute("Remote", "The receiver's address (InetSocketAddress).", AddressValue(),
                            MakeAddressAccessor(&PacedTcpSender::m_remote), MakeAddressChecker())
              .AddAttribute("Rate", "Target application rate of this stream (iperf -b).",
                            DataRateValue(DataRate("1Gbps")),
                            MakeDataRateAccessor(&PacedTcpSender::m_rate), MakeDataRateChecker())
              .AddAttribute(
                  "WriteBytes", "Bytes per write (iperf's -l, 128 KiB by default for TCP).",
                  UintegerValue(128 * 1024), MakeUintegerAccessor(&PacedTcpSender::m_writeBytes),
                  MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("MaxCreditWrites",
                            "Most writes' worth of unused credit a stalled stream may keep.",
                            UintegerValue(4),
                            MakeUintegerAccessor(&PacedTcpSender::m_maxCreditWrites),
                            MakeUintegerChecker<uint32_t>(1))
              .AddTraceSource("Tx", "A buffer was written into the socket.",
                              MakeTraceSourceAccessor(&PacedTcpSender::m_txTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

PacedTcpSender::PacedTcpSender() = default;

void
PacedTcpSender::DoDispose()
{
    m_writeEvent.Cancel();
    m_socket = nullptr;
    Application::DoDispose();
}

void
PacedTcpSender::StartApplication()
{
    m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    m_socket->Bind();
    m_socket->SetConnectCallback(MakeCallback(&PacedTcpSender::HandleConnected, this),
                                 MakeCallback(&PacedTcpSender::HandleConnectFailed, this));
    m_socket->SetSendCallback(MakeCallback(&PacedTcpSender::HandleSendSpace, this));
    m_socket->Connect(m_remote);
}

void
PacedTcpSender::StopApplication()
{
    m_writeEvent.Cancel();
    if (m_socket)
    {
        m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        m_socket->Close();
    }
    m_connected = false;
}

void
PacedTcpSender::HandleConnected(Ptr<Socket> socket)
{
    m_connected = true;
    m_lastRefill = Simulator::Now();
    m_creditBytes = m_writeBytes; // iperf writes its first buffer at once
    Write();
}

void
PacedTcpSender::HandleConnectFailed(Ptr<Socket> socket)
{
    NS_FATAL_ERROR("PacedTcpSender: connection failed at " << Simulator::Now().As(Time::US));
}

void
PacedTcpSender::HandleSendSpace(Ptr<Socket> socket, uint32_t available)
{
    if (m_connected && !m_writeEvent.IsRunning())
    {
        Write();
    }
}

void
PacedTcpSender::Refill()
{
    Time now = Simulator::Now();
    m_creditBytes += (now - m_lastRefill).GetSeconds() * m_rate.GetBitRate() / 8.0;
    m_creditBytes = std::min(m_creditBytes, double(m_writeBytes) * m_maxCreditWrites);
    m_lastRefill = now;
}

void
PacedTcpSender::Write()
{
    if (!m_connected)
    {
        return;
    }
    Refill();
    while (m_creditBytes >= m_writeBytes)
    {
        if (m_socket->GetTxAvailable() < m_writeBytes)
        {
            return; // HandleSendSpace resumes; credit keeps accruing (capped)
        }
        Ptr<Packet> p = Create<Packet>(m_writeBytes);
        int sent = m_socket->Send(p);
        if (sent <= 0)
        {
            return;
        }
        m_txTrace(p);
        m_bytesWritten += sent;
        m_creditBytes -= sent;
    }
    double missing = m_writeBytes - m_creditBytes;
    // Rounded up to whole nanoseconds so the next write always finds enough credit.
    Time wait = NanoSeconds(std::max<int64_t>(1, std::ceil(missing * 8.0e9 / m_rate.GetBitRate())));
    m_writeEvent = Simulator::Schedule(wait, &PacedTcpSender::Write, this);
}

} // namespace ns3
