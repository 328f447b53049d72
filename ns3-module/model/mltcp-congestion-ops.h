/*
 * MLTCP on a window-based congestion control (Reno, CUBIC, ...): the base algorithm runs as it
 * is on a window of its own (the shadow), and after slow start each step it makes is added to
 * the socket's window scaled by MLTCP's F(bytes_ratio) (mltcp-aggressiveness.h). Reductions
 * (the base's ssthresh on a loss or an ECN echo) are the base's own and reset the shadow to
 * the socket's window. A fraction of a byte left by the scaling is carried to the next step,
 * so CUBIC's whole-segment steps are scaled on average too. The shadow matters for CUBIC: fed
 * the scaled window, its state pulled the window back up (under repeated cuts it grew 0.70
 * times as fast at F = 0.5, not 0.5; test Mltcp.CubicUnderRepeatedCutsGrowsFTimesAsFast), and
 * two jobs over CUBIC did not slide apart at packet level (docs/mltcp.md).
 *
 * The paper adds its function to the additive increase of Reno and to CUBIC's window growth;
 * scaling whatever increase the base makes is that for both and needs no copy of either.
 */
#ifndef FLUMEN_MLTCP_CONGESTION_OPS_H
#define FLUMEN_MLTCP_CONGESTION_OPS_H

#include "mltcp-aggressiveness.h"

#include "ns3/tcp-congestion-ops.h"

namespace ns3
{

class MltcpCongestionOps : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    MltcpCongestionOps();
    MltcpCongestionOps(const MltcpCongestionOps& other);

    /** Where F comes from (shared by every connection of a ring link; none: F = 1). */
    void SetAggressiveness(Ptr<MltcpAggressiveness> aggressiveness);
    /** The base algorithm (made from the Base attribute on first use). */
    Ptr<TcpCongestionOps> GetBase();

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

  private:
    TypeId m_baseType;
    Ptr<TcpCongestionOps> m_base;
    Ptr<MltcpAggressiveness> m_aggressiveness;
    double m_carryBytes = 0; //!< the scaled increase's fraction of a byte not yet applied
    uint32_t m_shadow = 0;   //!< the base's own window in congestion avoidance (0: none yet)
    uint32_t m_lastSet = 0;  //!< the window MLTCP last set (another value: a cut happened)

    TracedValue<double> m_factor; //!< F at the last increase
};

} // namespace ns3

#endif
