#include "dcqcn-rate-control.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnRateControl");
NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
DcqcnRateControl::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::DcqcnRateControl")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<DcqcnRateControl>()
              .AddAttribute("AlphaGain", "g: weight of the newest period in alpha.",
                            DoubleValue(1.0 / 256), MakeDoubleAccessor(&DcqcnRateControl::m_g),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("AlphaUpdateInterval",
                            "K: alpha decays by (1-g) for every such period without a CNP.",
                            TimeValue(MicroSeconds(55)),
                            MakeTimeAccessor(&DcqcnRateControl::m_alphaInterval),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("InitialAlpha", "Alpha before the first CNP.", DoubleValue(1.0),
                            MakeDoubleAccessor(&DcqcnRateControl::m_initialAlpha),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("RateIncreaseInterval", "T: the rate-increase timer.",
                            TimeValue(MicroSeconds(300)),
                            MakeTimeAccessor(&DcqcnRateControl::m_increaseInterval),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("ByteCounter", "B: bytes sent per byte-counter stage.",
                            UintegerValue(32767ULL * 64),
                            MakeUintegerAccessor(&DcqcnRateControl::m_byteCounter),
                            MakeUintegerChecker<uint64_t>(1))
              .AddAttribute(
                  "FastRecoverySteps", "F: stages of fast recovery before additive increase.",
                  UintegerValue(1), MakeUintegerAccessor(&DcqcnRateControl::m_fastRecoverySteps),
                  MakeUintegerChecker<uint32_t>())
              .AddAttribute("AdditiveIncrease", "R_AI: target-rate step in additive increase.",
                            DataRateValue(DataRate("5Mbps")),
                            MakeDataRateAccessor(&DcqcnRateControl::m_ai), MakeDataRateChecker())
              .AddAttribute("HyperIncrease", "R_HAI: target-rate step in hyper increase.",
                            DataRateValue(DataRate("50Mbps")),
                            MakeDataRateAccessor(&DcqcnRateControl::m_hai), MakeDataRateChecker())
              .AddAttribute(
                  "MinRate", "The rate is never cut below this.", DataRateValue(DataRate("1Mbps")),
                  MakeDataRateAccessor(&DcqcnRateControl::m_minRate), MakeDataRateChecker())
              .AddAttribute("MinDecreaseFactor",
                            "One cut keeps at least this fraction of the rate (rpg_min_dec_fac).",
                            DoubleValue(0.5),
                            MakeDoubleAccessor(&DcqcnRateControl::m_minDecreaseFactor),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("ClampTargetRate",
                            "Every cut sets the target to the current rate (ConnectX "
                            "clamp_tgt_rate); off: only when the rate has risen since the last "
                            "cut.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&DcqcnRateControl::m_clampTargetRate),
                            MakeBooleanChecker())
              .AddTraceSource("Rate", "The current sending rate Rc in bit/s.",
                              MakeTraceSourceAccessor(&DcqcnRateControl::m_rateTrace),
                              "ns3::TracedValueCallback::Double");
    return tid;
}

DcqcnRateControl::DcqcnRateControl() {}

void
DcqcnRateControl::DoDispose()
{
    m_timer.Cancel();
    m_aggressiveness = nullptr;
    Object::DoDispose();
}

void
DcqcnRateControl::SetLineRate(DataRate rate)
{
    m_lineRate = static_cast<double>(rate.GetBitRate());
    m_rt = m_lineRate;
    m_alpha = m_initialAlpha;
    m_cutOnce = false;
    m_timer.Cancel();
    SetRc(m_lineRate);
}

void
DcqcnRateControl::SetRc(double bps)
{
    m_rc = bps;
    m_rateTrace = bps;
}

void
DcqcnRateControl::ApplyAlphaDecay()
{
    // Every full alpha period since the last CNP (or the last decay) had no CNP.
    Time now = Simulator::Now();
    if (now <= m_alphaReference)
    {
        return;
    }
    int64_t periods = (now - m_alphaReference).GetTimeStep() / m_alphaInterval.GetTimeStep();
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_g, static_cast<double>(periods));
        m_alphaReference += TimeStep(periods * m_alphaInterval.GetTimeStep());
    }
}

void
DcqcnRateControl::ReceiveCnp()
{
    NS_ASSERT_MSG(m_lineRate > 0, "DcqcnRateControl: line rate not set");
    ++m_cnps;
    if (m_cutOnce)
    {
        ApplyAlphaDecay();
    }
    // Rt remembers the rate before the cut, unless CNPs come back to back with no increase
    // in between (then Rt keeps the rate before the first of them). The cut is alpha/2,
    // bounded by MinDecreaseFactor.
    if (m_clampTargetRate || !m_cutOnce || m_timerStages > 0 || m_byteStages > 0)
    {
        m_rt = m_rc;
    }
    m_cutOnce = true;
    double factor = std::max(1.0 - m_alpha / 2.0, m_minDecreaseFactor);
    SetRc(std::max(m_rc * factor, static_cast<double>(m_minRate.GetBitRate())));
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_alphaReference = Simulator::Now();
    m_timerStages = 0;
    m_byteStages = 0;
    m_bytesThisStage = 0;
    m_timer.Cancel();
    m_timer = Simulator::Schedule(m_increaseInterval, &DcqcnRateControl::TimerExpired, this);
    NS_LOG_LOGIC("CNP: rate " << m_rc / 1e9 << " Gb/s target " << m_rt / 1e9 << " alpha "
                              << m_alpha);
}

void
DcqcnRateControl::NotifyBytesSent(uint64_t bytes)
{
    if (m_rc >= m_lineRate)
    {
        return; // at line rate there is nothing to recover
    }
    m_bytesThisStage += bytes;
    // One call may complete several stages (a packet above a tiny counter, a fluid sender's
    // interval): each is an increase of its own.
    while (m_bytesThisStage >= m_byteCounter && m_rc < m_lineRate)
    {
        m_bytesThisStage -= m_byteCounter;
        ++m_byteStages;
        Increase();
    }
}

void
DcqcnRateControl::TimerExpired()
{
    ++m_timerStages;
    Increase();
    if (m_rc < m_lineRate)
    {
        m_timer = Simulator::Schedule(m_increaseInterval, &DcqcnRateControl::TimerExpired, this);
    }
}

void
DcqcnRateControl::Increase()
{
    const uint32_t f = m_fastRecoverySteps;
    const uint32_t most = std::max(m_timerStages, m_byteStages);
    const uint32_t least = std::min(m_timerStages, m_byteStages);
    const double scale = m_aggressiveness ? m_aggressiveness->Factor() : 1.0;
    if (most >= f) // past fast recovery, the target itself rises
    {
        m_rt += scale
                * (least > f
                       ? static_cast<double>(least - f) * static_cast<double>(m_hai.GetBitRate())
                       : static_cast<double>(m_ai.GetBitRate()));
    }
    m_rt = std::min(m_rt, m_lineRate);
    if (m_aggressiveness)
    {
        // MLTCP (SetAggressiveness): F times DCQCN's half of the gap to the target.
        SetRc(std::min(m_rc + std::min(scale / 2.0, 1.0) * (m_rt - m_rc), m_lineRate));
    }
    else
    {
        SetRc(std::min((m_rt + m_rc) / 2.0, m_lineRate));
    }
    // Within a packet of line rate the flow has recovered.
    if (m_lineRate - m_rc < m_lineRate * 1e-4)
    {
        SetRc(m_lineRate);
        m_rt = m_lineRate;
        m_timer.Cancel();
    }
}

} // namespace ns3
