// link.csv and flows.csv written while the run goes: every 0.1 s of simulated time the
// network hands over the bins it has closed and the cross traffic the flows that have ended
// (in order, up to the first still open), and they are appended to their files, so that
// memory stays flat however long the run (a flow-level hour beside 20 Gbps of web-search is
// 36 million bins of 100 us and millions of flows). The flows' summary figures are gathered
// on the way.
#ifndef FLUMEN_STREAMED_OUTPUTS_H
#define FLUMEN_STREAMED_OUTPUTS_H

#include "appending-file.h"
#include "flow-tally.h"
#include "measurement.h"
#include "network.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flumen
{

class StreamedOutputs
{
  public:
    /** Starts the files the scenario has into `dir` and drains them from now on. */
    StreamedOutputs(const Scenario& scenario, Network& network,
                    const std::optional<CrossTraffic>& cross, const Measurement& measurement,
                    const std::string& dir);

    /** Appends what is left, up to now, and closes the files (after the window closed). */
    void Finish();
    /** The names of the files written into the folder. */
    std::vector<std::string> Files() const;
    /** The flows handed over (nullptr without flows.csv). */
    const FlowTally* Flows() const { return m_flows ? &m_tally : nullptr; }

  private:
    void Drain();
    void Append(bool closedOnly);

    Network& m_network;
    const std::optional<CrossTraffic>& m_cross;
    const Measurement& m_measurement;
    std::unique_ptr<AppendingFile> m_link;
    std::unique_ptr<AppendingFile> m_flows;
    FlowTally m_tally;
    bool m_finished = false;
};

} // namespace flumen

#endif
