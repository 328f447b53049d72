/*
 * The web-search server: accepts every connection on its port, reads each flow's 8-byte
 * header (flow id, size) and data, reports the flow complete when its last byte has
 * arrived, and closes its side when the client closes.
 */
#ifndef FLUMEN_FLOW_SINK_H
#define FLUMEN_FLOW_SINK_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <unordered_map>

namespace ns3
{

class FlowSink : public Application
{
  public:
    static TypeId GetTypeId();
    FlowSink();

    /** Signature of the FlowComplete trace: flow id, size in bytes, time of the last byte. */
    typedef void (*FlowCompleteTracedCallback)(uint32_t id, uint64_t sizeBytes, Time at);

    /** Bytes received on every connection (headers included). */
    uint64_t GetTotalRx() const { return m_totalRx; }
    uint64_t GetFlowsCompleted() const { return m_completed; }
    /** Connections accepted and not yet closed by their client. */
    uint64_t GetConnectionsOpen() const { return m_connections.size(); }

  protected:
    void DoDispose() override;

  private:
    struct Incoming
    {
        uint8_t header[8] = {};
        uint64_t received = 0; //!< bytes of this connection so far
        uint64_t size = 0;     //!< from the header
        uint32_t id = 0;
        bool reported = false;
        Ptr<Socket> socket;
    };

    void StartApplication() override;
    void StopApplication() override;
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleRead(Ptr<Socket> socket);
    void HandleClose(Ptr<Socket> socket);

    uint16_t m_port;
    Ptr<Socket> m_listener;
    std::unordered_map<Socket*, Incoming> m_connections;
    uint64_t m_totalRx = 0;
    uint64_t m_completed = 0;

    TracedCallback<uint32_t, uint64_t, Time> m_flowCompleteTrace;
};

} // namespace ns3

#endif
