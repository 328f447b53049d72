#include "rdma-ring-transport.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaRingTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaRingTransport);

TypeId
RdmaRingTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaRingTransport")
              .SetParent<RingTransport>()
              .SetGroupName("Flumen")
              .AddConstructor<RdmaRingTransport>()
              .AddAttribute("QueuePair",
                            "Queue-pair number, the same on every rank of one ring (NCCL "
                            "channel).",
                            UintegerValue(1), MakeUintegerAccessor(&RdmaRingTransport::m_qpn),
                            MakeUintegerChecker<uint16_t>())
              .AddAttribute("Mtu", "RoCE MTU: payload bytes per packet.", UintegerValue(1024),
                            MakeUintegerAccessor(&RdmaRingTransport::m_mtu),
                            MakeUintegerChecker<uint32_t>(64, 4096))
              .AddAttribute("AckInterval",
                            "The receiver acknowledges every this many packets (and each "
                            "message's last).",
                            UintegerValue(16),
                            MakeUintegerAccessor(&RdmaRingTransport::m_ackInterval),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("CnpInterval", "At most one CNP per queue pair per this interval.",
                            TimeValue(MicroSeconds(50)),
                            MakeTimeAccessor(&RdmaRingTransport::m_cnpInterval),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("NakInterval",
                            "A gap still open after this long is NAKed again (the NAK or the "
                            "retransmission was lost).",
                            TimeValue(MicroSeconds(500)),
                            MakeTimeAccessor(&RdmaRingTransport::m_nakInterval),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("RetransmitTimeout",
                            "Go back to the first unacknowledged packet when no ACK came for this "
                            "long (NCCL's default NCCL_IB_TIMEOUT=14: 4.096 us x 2^14).",
                            // In whole nanoseconds: MicroSeconds(67108.864) loses the fraction
                            // when a TypeId is registered (before the time resolution is set).
                            TimeValue(NanoSeconds(4096 * 16384)),
                            MakeTimeAccessor(&RdmaRingTransport::m_rto),
                            MakeTimeChecker(MicroSeconds(1)))
              .AddTraceSource("PacketDelivered",
                              "A data packet was accepted in order (payload bytes, PSN).",
                              MakeTraceSourceAccessor(&RdmaRingTransport::m_deliveredTrace),
                              "ns3::RdmaRingTransport::DeliveredTracedCallback")
              .AddTraceSource("Nak", "The sender got a NAK and goes back to this PSN.",
                              MakeTraceSourceAccessor(&RdmaRingTransport::m_nakTrace),
                              "ns3::TracedValueCallback::Uint32")
              .AddTraceSource("Timeout",
                              "The retransmission timer fired; the sender goes back to this PSN.",
                              MakeTraceSourceAccessor(&RdmaRingTransport::m_timeoutTrace),
                              "ns3::TracedValueCallback::Uint32")
              .AddTraceSource("Cnp", "The sender got a CNP.",
                              MakeTraceSourceAccessor(&RdmaRingTransport::m_cnpTrace),
                              "ns3::TracedCallback::Void");
    return tid;
}

RdmaRingTransport::RdmaRingTransport()
{
    m_dcqcn = CreateObject<DcqcnRateControl>();
}

RdmaRingTransport::~RdmaRingTransport() = default;

void
RdmaRingTransport::DoDispose()
{
    m_dueEvent.Cancel();
    m_rtoEvent.Cancel();
    m_ctsTimer.Cancel();
    if (m_nic)
    {
        m_nic->Unregister(m_qpn);
    }
    m_nic = nullptr;
    m_node = nullptr;
    if (m_dcqcn)
    {
        m_dcqcn->Dispose();
    }
    m_dcqcn = nullptr;
    RingTransport::DoDispose();
}

void
RdmaRingTransport::Start()
{
    NS_ABORT_MSG_IF(!m_node, "RdmaRingTransport: no node set");
    if (m_started)
    {
        return;
    }
    m_nic = RdmaNic::GetOrInstall(m_node);
    m_nic->Register(m_qpn, MakeCallback(&RdmaRingTransport::Receive, this),
                    MakeCallback(&RdmaRingTransport::Transmit, this));
    m_dcqcn->SetLineRate(m_nic->GetLineRate());
    m_framingBytes = m_nic->GetFramingBytes();
    m_dcqcn->SetAggressiveness(GetAggressiveness());
    m_started = true;
    RequestIfDue();
}

void
RdmaRingTransport::Send(uint64_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    Message m;
    m.bytes = bytes;
    m.firstPsn = m_psnEnd;
    // A zero-length message is still one (empty) packet, as in RDMA.
    m.packets = static_cast<uint32_t>(bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu);
    m_messages.push_back(m);
    m_psnEnd += m.packets;
    m_bytesQueued += bytes;
    if (m_messagesQueued++ < m_granted)
    {
        m_sendableEnd = m_psnEnd;
    }
    else
    {
        m_waitingCts.push_back(m_psnEnd);
    }
    RequestIfDue();
}

void
RdmaRingTransport::HandleCts(uint32_t granted)
{
    if (granted <= m_granted)
    {
        return; // an old count (a repeat, or overtaken)
    }
    m_granted = granted;
    // Messages queued before their CTS came: the first (granted - already cleared) of them.
    uint32_t cleared = m_messagesQueued - static_cast<uint32_t>(m_waitingCts.size());
    while (!m_waitingCts.empty() && cleared < m_granted)
    {
        m_sendableEnd = m_waitingCts.front();
        m_waitingCts.pop_front();
        ++cleared;
    }
    RequestIfDue();
}

void
RdmaRingTransport::RequestIfDue()
{
    if (!m_started || m_requested || m_sndNxt >= SendableEnd())
    {
        return;
    }
    Time now = Simulator::Now();
    if (now >= m_nextDue)
    {
        m_requested = true;
        m_nic->RequestTransmit(m_qpn);
    }
    else if (!m_dueEvent.IsRunning())
    {
        m_dueEvent = Simulator::Schedule(m_nextDue - now, &RdmaRingTransport::RequestIfDue, this);
    }
}

uint32_t
RdmaRingTransport::PayloadOf(uint32_t psn) const
{
    for (const Message& m : m_messages)
    {
        if (psn < m.firstPsn + m.packets)
        {
            NS_ASSERT(psn >= m.firstPsn);
            uint64_t offset = static_cast<uint64_t>(psn - m.firstPsn) * m_mtu;
            return static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - offset));
        }
    }
    NS_ABORT_MSG("RdmaRingTransport: PSN " << psn << " belongs to no message");
    return 0;
}

bool
RdmaRingTransport::IsLastOfMessage(uint32_t psn) const
{
    for (const Message& m : m_messages)
    {
        if (psn < m.firstPsn + m.packets)
        {
            return psn + 1 == m.firstPsn + m.packets;
        }
    }
    return false;
}

void
RdmaRingTransport::Transmit()
{
    m_requested = false;
    if (m_sndNxt >= SendableEnd())
    {
        return;
    }
    uint32_t psn = m_sndNxt++;
    uint32_t payload = PayloadOf(psn);
    RoceHeader h;
    h.opcode = RoceHeader::DATA;
    h.lastOfMessage = IsLastOfMessage(psn);
    h.srcQp = m_qpn;
    h.dstQp = m_qpn;
    h.psn = psn;
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(h);
    m_nic->Send(p, m_next);
    if (psn < m_highestSent)
    {
        ++m_retransmitted;
    }
    else
    {
        m_highestSent = psn + 1;
    }
    uint32_t wire = RdmaNic::WireBytes(payload);
    m_dcqcn->NotifyBytesSent(wire);
    // Paced by what the packet takes of the wire, its framing too (RdmaNic::GetFramingBytes).
    m_nextDue = Simulator::Now() + Seconds((wire + m_framingBytes) * 8.0 / m_dcqcn->GetRateBps());
    if (!m_rtoEvent.IsRunning())
    {
        RestartTimer();
    }
    RequestIfDue();
}

void
RdmaRingTransport::RestartTimer()
{
    m_rtoEvent.Cancel();
    m_rtoEvent = Simulator::Schedule(m_rto, &RdmaRingTransport::RetransmitTimeout, this);
}

void
RdmaRingTransport::RetransmitTimeout()
{
    if (m_sndUna >= m_highestSent)
    {
        return;
    }
    ++m_timeouts;
    NS_LOG_INFO("QP " << m_qpn << " timeout: back to PSN " << m_sndUna);
    m_timeoutTrace(m_sndUna);
    m_sndNxt = m_sndUna;
    RestartTimer();
    RequestIfDue();
}

void
RdmaRingTransport::HandleAck(uint32_t psn)
{
    if (psn + 1 <= m_sndUna || psn >= m_highestSent)
    {
        return; // old, or acknowledges nothing sent
    }
    m_sndUna = psn + 1;
    std::vector<uint64_t> acknowledged;
    while (!m_messages.empty()
           && m_messages.front().firstPsn + m_messages.front().packets <= m_sndUna)
    {
        acknowledged.push_back(m_messages.front().bytes);
        m_messages.pop_front();
    }
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna;
    }
    if (m_sndUna >= m_highestSent)
    {
        m_rtoEvent.Cancel();
    }
    else
    {
        RestartTimer();
    }
    // Last: the ring may queue its next messages from inside these.
    for (uint64_t bytes : acknowledged)
    {
        NotifySendComplete(bytes);
    }
}

void
RdmaRingTransport::HandleNak(uint32_t expected)
{
    if (expected > 0)
    {
        HandleAck(expected - 1);
    }
    if (expected < m_sndUna || expected >= m_sndNxt)
    {
        return;
    }
    NS_LOG_INFO("QP " << m_qpn << " NAK: back to PSN " << expected);
    m_nakTrace(expected);
    m_sndNxt = expected;
    RequestIfDue();
}

void
RdmaRingTransport::Receive(const RoceHeader& h, uint32_t payload, Ipv4Address from, bool ce)
{
    switch (h.opcode)
    {
    case RoceHeader::DATA:
        HandleData(h, payload, from, ce);
        break;
    case RoceHeader::ACK:
        HandleAck(h.psn);
        break;
    case RoceHeader::NAK:
        HandleNak(h.psn);
        break;
    case RoceHeader::CNP:
        m_cnpTrace();
        m_dcqcn->ReceiveCnp();
        break;
    case RoceHeader::CTS:
        HandleCts(h.psn);
        break;
    }
}

void
RdmaRingTransport::SendControl(RoceHeader::Opcode op, uint32_t psn, Ipv4Address to)
{
    RoceHeader h;
    h.opcode = op;
    h.srcQp = m_qpn;
    h.dstQp = m_qpn;
    h.psn = psn;
    // A CTS is NCCL's RDMA write of one FIFO entry, struct ncclIbSendFifo: 24 bytes.
    Ptr<Packet> p = Create<Packet>(op == RoceHeader::CTS ? 24 : 0);
    p->AddHeader(h);
    m_nic->Send(p, to);
}

void
RdmaRingTransport::HandleData(const RoceHeader& h, uint32_t payload, Ipv4Address from, bool ce)
{
    Time now = Simulator::Now();
    if (ce && (!m_cnpSent || now - m_lastCnp >= m_cnpInterval))
    {
        m_cnpSent = true;
        m_lastCnp = now;
        ++m_cnpsSent;
        SendControl(RoceHeader::CNP, 0, from);
    }
    if (h.psn == m_ePsn)
    {
        ++m_ePsn;
        m_naked = false;
        m_bytesReceived += payload;
        m_deliveredTrace(payload, h.psn);
        if (h.lastOfMessage || ++m_sinceAck >= m_ackInterval)
        {
            m_sinceAck = 0;
            SendControl(RoceHeader::ACK, h.psn, from);
        }
        CompleteReceives();
        return;
    }
    ++m_discarded;
    if (h.psn > m_ePsn)
    {
        // Sequence error: everything from ePSN must come again.
        if (!m_naked || m_nakedPsn != m_ePsn || now - m_lastNak >= m_nakInterval)
        {
            m_naked = true;
            m_nakedPsn = m_ePsn;
            m_lastNak = now;
            ++m_naksSent;
            SendControl(RoceHeader::NAK, m_ePsn, from);
        }
    }
    else if (++m_sinceAck >= m_ackInterval || h.lastOfMessage)
    {
        // A duplicate: the sender went back further than needed; tell it where we are.
        m_sinceAck = 0;
        SendControl(RoceHeader::ACK, m_ePsn - 1, from);
    }
}

void
RdmaRingTransport::PostReceive(uint64_t bytes)
{
    m_postedTotal += bytes;
    m_posted.push_back({ bytes, m_postedTotal });
    if (m_clearToSend)
    {
        ++m_receivesPosted;
        SendCts();
    }
    // Bytes may already be here; complete from a fresh event so the caller is not re-entered.
    Simulator::ScheduleNow(&RdmaRingTransport::CompleteReceives, this);
}

void
RdmaRingTransport::SendCts()
{
    NS_ABORT_MSG_IF(!m_started, "RdmaRingTransport: a receive posted before Start");
    NS_ABORT_MSG_IF(m_previous == Ipv4Address(), "RdmaRingTransport: no previous rank set");
    ++m_ctsSent;
    SendControl(RoceHeader::CTS, m_receivesPosted, m_previous);
    if (!m_ctsTimer.IsRunning())
    {
        m_receivedAtCtsCheck = m_bytesReceived;
        m_ctsTimer = Simulator::Schedule(m_rto, &RdmaRingTransport::CtsTimeout, this);
    }
}

void
RdmaRingTransport::CtsTimeout()
{
    if (m_bytesReceived >= m_postedTotal)
    {
        return; // every cleared byte is here: the count reached the sender
    }
    if (m_bytesReceived == m_receivedAtCtsCheck)
    {
        // Nothing came for a whole timeout: the last CTS may be lost; say the count again.
        ++m_ctsSent;
        ++m_ctsRepeated;
        SendControl(RoceHeader::CTS, m_receivesPosted, m_previous);
    }
    m_receivedAtCtsCheck = m_bytesReceived;
    m_ctsTimer = Simulator::Schedule(m_rto, &RdmaRingTransport::CtsTimeout, this);
}

void
RdmaRingTransport::CompleteReceives()
{
    while (!m_posted.empty() && m_bytesReceived >= m_posted.front().cumulativeTarget)
    {
        uint64_t bytes = m_posted.front().bytes;
        m_posted.pop_front();
        NotifyReceiveComplete(bytes);
    }
}

} // namespace ns3
