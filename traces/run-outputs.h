// The files a run leaves in its output folder: iterations.csv (one row per worker and
// iteration) and summary.json. Both are written atomically; readers parse them back.
#ifndef FLUMEN_RUN_OUTPUTS_H
#define FLUMEN_RUN_OUTPUTS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace flumen
{

struct IterationRow
{
    uint32_t iteration = 0;
    uint32_t worker = 0;
    double startS = 0;    //!< forward pass began
    double endS = 0;      //!< optimizer step done
    double forwardS = 0;  //!< forward pass
    double backwardS = 0; //!< backward pass (gradients released during it)
    double waitS = 0;     //!< after the backward pass, waiting for the last all-reduce
    double stepS = 0;     //!< optimizer step
    bool warmup = false;
    std::string job; //!< job.name (each of `jobs`)

    double DurationS() const { return endS - startS; }
    bool operator==(const IterationRow& o) const;
};

/**
 * Header: iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup,job
 * (wait_s is the communication the backward pass did not hide; worker is the rank in its job).
 */
std::string FormatIterationsCsv(const std::vector<IterationRow>& rows);
/** Parses what FormatIterationsCsv wrote (or, without the job column, older runs); errors
 * name `source` and the line. */
std::vector<IterationRow> ParseIterationsCsv(const std::string& text, const std::string& source);

/** One cross-traffic flow (flows.csv). */
struct FlowRow
{
    uint32_t id = 0;
    double startS = 0;
    uint64_t sizeBytes = 0;
    double endS = -1; //!< negative: not complete when the run ended
    bool failed = false;
};

/** What one cross-traffic flow's TCP socket did (tcp.csv, packet level). */
struct TcpFlowRow
{
    uint32_t id = 0; //!< as in flows.csv
    double startS = 0;
    uint64_t sizeBytes = 0;
    double slowStartEndS = -1; //!< negative: never left slow start
    uint32_t slowStartEndCwndBytes = 0;
    std::string slowStartEndCause; //!< hystart, loss, ecn or other
    uint32_t maxCwndBytes = 0;
    double minSrttS = -1; //!< smoothed round trip, smallest (negative: no sample)
    double maxSrttS = -1;
    uint32_t recoveries = 0;
    uint32_t timeouts = 0;
};

/** One bin of a port's time series (link.csv: the bottleneck's or outputs.link_port's). */
struct LinkRow
{
    double startS = 0;
    double widthS = 0;
    uint64_t jobBytes = 0;
    uint64_t crossBytes = 0;
    double queueMeanBytes = 0;
    uint32_t queueMaxBytes = 0;
    uint32_t drops = 0;
    uint32_t ecnMarks = 0;
};

/**
 * One hop of the ring (a job host's egress towards the next rank) in bins: the job's bytes
 * its host put on its link (ring.csv; the thesis's per-flow injection rates, section 3.5).
 */
struct RingHopSeries
{
    std::string from; //!< host name, e.g. "S3"
    std::string to;   //!< the next rank's host
    double binS = 0;
    std::vector<uint64_t> jobBytes; //!< per bin from time 0
};

/** Header: flow_id,start_s,size_bytes,end_s,fct_s,completed (end_s and fct_s empty if not). */
std::string FormatFlowsCsv(const std::vector<FlowRow>& rows);
/** The rows of FormatFlowsCsv without its header, appended to `out`. */
void AppendFlowsCsvRows(std::string& out, const std::vector<FlowRow>& rows);
/**
 * Header: flow_id,start_s,size_bytes,slow_start_end_s,slow_start_end_cwnd_bytes,
 * slow_start_end_cause,max_cwnd_bytes,min_srtt_s,max_srtt_s,recoveries,timeouts (the end,
 * its window and its cause are empty for a flow that never left slow start, the round trips
 * for one without a sample).
 */
std::string FormatTcpCsv(const std::vector<TcpFlowRow>& rows);
/** Parses what FormatTcpCsv wrote; errors name `source`, the line and the column. */
std::vector<TcpFlowRow> ParseTcpCsv(const std::string& text, const std::string& source);
/**
 * Header: time_s,job_bytes,cross_bytes,job_gbps,cross_gbps,queue_mean_bytes,queue_max_bytes,
 * drops,ecn_marks (time_s = start of the bin).
 */
std::string FormatLinkCsv(const std::vector<LinkRow>& rows);
/** The rows of FormatLinkCsv without its header, appended to `out`. */
void AppendLinkCsvRows(std::string& out, const std::vector<LinkRow>& rows);
/** Header: time_s, then one <from>_to_<to>_gbps column per hop (bins of the first hop). */
std::string FormatRingCsv(const std::vector<RingHopSeries>& hops);

/**
 * Writes iterations.csv, each extra file (name, content), each staged file (name, path of a
 * file written during the run) and summary.json into `dir` as one set
 * (WriteFileSetAtomically): a failure leaves the folder as it was, a folder it created
 * removed again.
 */
void WriteRunOutputs(const std::string& dir, const std::vector<IterationRow>& rows,
                     const nlohmann::json& summary,
                     const std::vector<std::pair<std::string, std::string>>& extraFiles = {},
                     const std::vector<std::pair<std::string, std::string>>& stagedFiles = {});

} // namespace flumen

#endif
