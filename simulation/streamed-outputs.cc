#include "streamed-outputs.h"

#include "scenario.h"

#include "ns3/simulator.h"

namespace flumen
{

namespace
{

constexpr double kDrainIntervalS = 0.1;

} // namespace

StreamedOutputs::StreamedOutputs(const Scenario& s, Network& network,
                                 const std::optional<CrossTraffic>& cross,
                                 const Measurement& measurement, const std::string& dir)
    : m_network(network), m_cross(cross), m_measurement(measurement)
{
    if (s.linkBinUs > 0)
    {
        m_link = std::make_unique<AppendingFile>(dir + "/link.csv");
        m_link->Buffer() = FormatLinkCsv({});
    }
    if (cross && cross->takeFlows)
    {
        m_flows = std::make_unique<AppendingFile>(dir + "/flows.csv");
        m_flows->Buffer() = FormatFlowsCsv({});
    }
    ns3::Simulator::Schedule(ns3::Seconds(kDrainIntervalS), &StreamedOutputs::Drain, this);
}

std::vector<std::string>
StreamedOutputs::Files() const
{
    std::vector<std::string> names;
    if (m_flows)
    {
        names.emplace_back("flows.csv");
    }
    if (m_link)
    {
        names.emplace_back("link.csv");
    }
    return names;
}

void
StreamedOutputs::Drain()
{
    if (m_finished)
    {
        return;
    }
    Append(true);
    ns3::Simulator::Schedule(ns3::Seconds(kDrainIntervalS), &StreamedOutputs::Drain, this);
}

void
StreamedOutputs::Finish()
{
    m_finished = true;
    Append(false);
    for (AppendingFile* file : { m_link.get(), m_flows.get() })
    {
        if (file)
        {
            file->Close();
        }
    }
}

void
StreamedOutputs::Append(bool closedOnly)
{
    if (m_link)
    {
        AppendLinkCsvRows(m_link->Buffer(), m_network.TakeLinkSeries(closedOnly));
        m_link->Written();
    }
    if (m_flows)
    {
        const std::vector<FlowRow> rows = m_cross->takeFlows(closedOnly);
        const double windowStart
            = m_measurement.WindowOpen() ? m_measurement.WindowStart().GetSeconds() : -1.0;
        m_tally.Add(rows, m_cross->flowOverheadBytes, windowStart);
        AppendFlowsCsvRows(m_flows->Buffer(), rows);
        m_flows->Written();
    }
}

} // namespace flumen
