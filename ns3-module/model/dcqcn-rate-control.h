/*
 * DCQCN's reaction point (Zhu et al., SIGCOMM 2015): the sending rate of one queue pair.
 * A CNP cuts the current rate Rc by alpha/2 after remembering it as the target Rt; alpha
 * tracks how often CNPs come. Without CNPs the rate climbs back in stages driven by a timer
 * and by a byte counter: fast recovery (Rc halfway to Rt) while both stage counts are below
 * F, additive increase of Rt once one of them reaches F, hyper increase once both exceed F.
 *
 * Defaults: the increase side follows ConnectX's documented defaults (rpg_time_reset 300 us,
 * rpg_byte_reset 32767 x 64 B, rpg_threshold 1, rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s,
 * rpg_min_dec_fac 50 %, rpg_min_rate 1 Mb/s, initial alpha 1, clamp_tgt_rate off: a cut
 * lowers the target only if the rate rose since the previous cut, so a burst of CNPs does
 * not drag the target down with the rate); alpha keeps the paper's
 * update (gain 1/256 per 55 us period), evaluated lazily so an idle flow costs no events.
 */
#ifndef FLUMEN_DCQCN_RATE_CONTROL_H
#define FLUMEN_DCQCN_RATE_CONTROL_H

#include "mltcp-aggressiveness.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <cstdint>

namespace ns3
{

class DcqcnRateControl : public Object
{
  public:
    static TypeId GetTypeId();
    DcqcnRateControl();

    /** Sets the line rate; the flow starts at it (Rc = Rt = line rate). */
    void SetLineRate(DataRate rate);
    /** The current sending rate Rc in bit/s. */
    double GetRateBps() const { return m_rc; }
    double GetTargetRateBps() const { return m_rt; }
    double GetAlpha() const { return m_alpha; }
    uint64_t GetCnpsReceived() const { return m_cnps; }

    /** A CNP arrived for this queue pair. */
    void ReceiveCnp();
    /** The queue pair put this many bytes on the wire (drives the byte counter). */
    void NotifyBytesSent(uint64_t bytes);
    /** MLTCP on DCQCN (null: unscaled): at every stage the target's additive or hyper step
     * times F, and Rc closes F times DCQCN's half of its gap to Rt (all of it from F = 2).
     * flumen's reading of "scale the rate increase": with R_AI at 5 Mb/s the target moves a
     * few hundred Mb/s per communication phase, and scaling that step alone changed two jobs'
     * iteration times by 1 % at packet level; most of the increase is Rc's move towards Rt
     * (docs/mltcp.md). */
    void SetAggressiveness(Ptr<MltcpAggressiveness> aggressiveness)
    {
        m_aggressiveness = aggressiveness;
    }

  protected:
    void DoDispose() override;

  private:
    void ApplyAlphaDecay();
    void TimerExpired();
    void Increase();
    void SetRc(double bps);

    // Attributes
    double m_g;
    Time m_alphaInterval;
    double m_initialAlpha;
    Time m_increaseInterval;
    uint64_t m_byteCounter;
    uint32_t m_fastRecoverySteps;
    DataRate m_ai;
    DataRate m_hai;
    DataRate m_minRate;
    double m_minDecreaseFactor;
    bool m_clampTargetRate;

    double m_lineRate = 0;
    double m_rc = 0;
    double m_rt = 0;
    double m_alpha = 1.0;
    Time m_alphaReference; //!< start of the current alpha period
    bool m_cutOnce = false;
    uint32_t m_timerStages = 0;
    uint32_t m_byteStages = 0;
    uint64_t m_bytesThisStage = 0;
    uint64_t m_cnps = 0;
    EventId m_timer;
    Ptr<MltcpAggressiveness> m_aggressiveness;

    TracedValue<double> m_rateTrace; //!< Rc in bit/s
};

} // namespace ns3

#endif
