/*
 * The testbed's web-search client: for each flow of a FlowSchedule, at its start time, a new
 * TCP connection to the destination: connect, an 8-byte header, the flow's bytes, close.
 * The header carries the flow id and size (4 bytes each), so that the FlowSink can tell when
 * a flow is complete; on the wire it is the testbed's 8 bytes.
 *
 * With ChunkBytes set, a flow's bytes are written as the client of the testbed's runs wrote
 * them: a blocking send of one chunk, then a sleep of ChunkGap, and so on, which holds each
 * flow below ChunkBytes / ChunkGap whatever its window (WriterPaceBps).
 */
#ifndef FLUMEN_FLOW_GENERATOR_H
#define FLUMEN_FLOW_GENERATOR_H

#include "flow-schedule.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/** What happened to one flow: when it started, how big it was, when its last byte arrived. */
struct FlowRecord
{
    uint32_t id = 0;
    uint32_t destination = 0;
    uint64_t sizeBytes = 0;
    Time start;
    Time end = Time(-1); //!< negative while incomplete
    bool failed = false; //!< the connection could not be set up

    bool IsComplete() const { return !end.IsNegative(); }
};

class FlowGenerator : public Application
{
  public:
    static TypeId GetTypeId();
    FlowGenerator();

    /** Bytes of the header in front of every flow's data (the testbed's size header). */
    static constexpr uint32_t kHeaderBytes = 8;

    /** The most a flow's writer sends, bits per second, with these ChunkBytes and ChunkGap
     * (infinite when either is 0: it writes as its socket takes the bytes). */
    static double WriterPaceBps(uint64_t chunkBytes, Time gap);

    /** Signature of the FlowStart trace: flow id, size in bytes. */
    typedef void (*FlowStartTracedCallback)(uint32_t id, uint64_t sizeBytes);
    /** Signature of the FlowSocket trace: flow id, its socket (not yet connected). */
    typedef void (*FlowSocketTracedCallback)(uint32_t id, Ptr<Socket> socket);

    void SetSchedule(Ptr<FlowSchedule> schedule) { m_schedule = schedule; }
    /** Destination index i of the schedule is addresses[i] (its sink listens on Port). */
    void SetDestinations(const std::vector<Address>& addresses) { m_destinations = addresses; }
    /** Called by the sink (through the helper) when flow `id`'s last byte has arrived. */
    void NotifyFlowComplete(uint32_t id, uint64_t sizeBytes, Time at);

    const std::vector<FlowRecord>& GetRecords() const { return m_records; }
    uint64_t GetFlowsStarted() const { return m_records.size(); }
    uint64_t GetConnectionsOpen() const { return m_active.size(); }

  protected:
    void DoDispose() override;

  private:
    struct ActiveFlow
    {
        uint32_t id;
        uint64_t remaining; //!< bytes not yet written (header included)
        uint8_t header[kHeaderBytes] = {};
        bool connected = false;
        uint64_t chunkLeft = 0; //!< ChunkBytes: bytes of the current chunk not yet written
        EventId wake;           //!< ChunkBytes: the writer's sleep after a chunk
        Ptr<Socket> socket;     //!< keeps the socket alive while we still write into it
    };

    void StartApplication() override;
    void StopApplication() override;
    void ScheduleNext();
    void StartFlow();
    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);
    void HandleSendSpace(Ptr<Socket> socket, uint32_t available);
    void Write(Ptr<Socket> socket, ActiveFlow& flow);
    void Wake(Ptr<Socket> socket);

    uint16_t m_port;
    uint32_t m_maxWriteBytes;
    uint32_t m_chunkBytes;
    Time m_chunkGap;

    Ptr<FlowSchedule> m_schedule;
    std::vector<Address> m_destinations;
    FlowArrival m_nextFlow;
    bool m_haveNext = false;
    Time m_origin;
    EventId m_nextEvent;
    std::vector<FlowRecord> m_records;
    std::unordered_map<Socket*, ActiveFlow> m_active; //!< flows still being written

    TracedCallback<uint32_t, uint64_t> m_flowStartTrace;
    TracedCallback<uint32_t, Ptr<Socket>> m_flowSocketTrace;
};

} // namespace ns3

#endif
