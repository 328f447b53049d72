/*
 * One iperf client stream (`iperf -c IP -b BW`): a long-lived TCP connection whose
 * application writes fixed-size buffers no faster than a target rate. Unsent credit is
 * kept (as iperf's rate limiter does) but capped, so a stalled stream catches up in a
 * bounded burst rather than all at once.
 */
#ifndef FLUMEN_PACED_TCP_SENDER_H
#define FLUMEN_PACED_TCP_SENDER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class PacedTcpSender : public Application
{
  public:
    static TypeId GetTypeId();
    PacedTcpSender();

    uint64_t GetBytesWritten() const { return m_bytesWritten; }

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Refill();
    void Write();
    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);
    void HandleSendSpace(Ptr<Socket> socket, uint32_t available);

    // Attributes
    Address m_remote;
    DataRate m_rate;
    uint32_t m_writeBytes;
    uint32_t m_maxCreditWrites;

    Ptr<Socket> m_socket;
    bool m_connected = false;
    double m_creditBytes = 0.0;
    Time m_lastRefill;
    EventId m_writeEvent;
    uint64_t m_bytesWritten = 0;
    TracedCallback<Ptr<const Packet>> m_txTrace;
};

} // namespace ns3

#endif
