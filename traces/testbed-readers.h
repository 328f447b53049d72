// Readers for the testbed's files exactly as they are (docs/testbed-data.md), and for
// raw training logs: mixed headers, comma and tab separators, Mbps or Gbps, section-title
// lines. Every reader fails with "FILE:LINE: expected ..., got ..." on input it cannot read.
#ifndef FLUMEN_TESTBED_READERS_H
#define FLUMEN_TESTBED_READERS_H

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace flumen
{

/** Unreadable trace input; the message names the file and line and what was expected. */
class TraceError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

/** One experiment's iteration-time summary (one cross-traffic setting). */
struct IterationSummaryRow
{
    double index = 0;          //!< the experiment's index (requested Gbps in the TCP series)
    double meanS = 0;          //!< mean iteration time
    double stdevS = 0;         //!< its standard deviation
    double p99S = 0;           //!< 99th percentile
    double samples = kUnknown; //!< iterations measured, where the file says
    size_t line = 0;
};

/** One experiment's measured cross-traffic rate, in Gbps whatever the file's unit. */
struct CrossTrafficRow
{
    double index = 0;
    double gbps = 0;
    double stdevGbps = kUnknown;
    double runTimeS = kUnknown;
    double samples = kUnknown;
    std::string section; //!< reference file: "SHORT (3min) Runs" or "LONG (5min) Runs"
    size_t line = 0;
};

/** One point of an empirical iteration-time CDF. */
struct CdfPoint
{
    double seconds = 0;
    double fraction = 0;
};

/** One iteration's time from a raw training log. */
struct IterationSample
{
    uint64_t iteration = 0;
    double durationS = 0;
    int worker = -1;                    //!< mpirun rank tag, where there is one
    double crossTrafficGbps = kUnknown; //!< generic CSV's optional column
    size_t line = 0;
};

/**
 * Iteration summaries (an optional first line of column names in any spelling, blank lines
 * skipped). `format`:
 *  - "index-mean-stdev-p99": `index, mean, stdev, tail99`, comma separated
 *    (iperf_data_iter_<m>.txt, consistRDMA_data_iter_<m>.txt);
 *  - "index-mean-samples-stdev-p99": `index, mean, samples, stdev, tail99`, comma and/or tab
 *    separated (consist_data_TCP_iter_<m>.csv and its _extended_ variant).
 */
std::vector<IterationSummaryRow> ReadIterationSummary(const std::string& path,
                                                      const std::string& format);

/**
 * Measured cross traffic (an optional header line, blank lines skipped). `format`:
 *  - "index-mean-stdev": `index, mean, stdev`; `unit` "Mbps" (iperf) or "Gbps";
 *  - "index-gbps-runtime-stdev": `index, measured_gbps, run_time_s, stdev`;
 *  - "reference": `index, mean, mean_truncated, num_samples, run_time, stdev` with
 *    section-title lines (websearch-tcp-configB/consist_data_TCP_reference.csv).
 */
std::vector<CrossTrafficRow> ReadCrossTraffic(const std::string& path, const std::string& format,
                                              const std::string& unit = "Gbps");

/** `iteration_time_s, cumulative_fraction` lines (the iteration-cdfs folder). */
std::vector<CdfPoint> ReadIterationCdf(const std::string& path);

/**
 * PyTorch ImageNet-example progress lines, `Epoch: [0][ 10/5005]  Time  0.158 ( 0.160) ...`,
 * possibly behind mpirun's `[1,0]<stdout>:` tag (the rank becomes the worker). The current
 * batch time is the sample; the iteration is epoch x batches per epoch + batch. Other lines
 * are skipped; a progress line that cannot be read is an error.
 */
std::vector<IterationSample> ReadPyTorchLog(const std::string& path);

/** Generic CSV: header `iteration, duration_s[, cross_traffic_gbps]`, one row per iteration. */
std::vector<IterationSample> ReadGenericIterationCsv(const std::string& path);

} // namespace flumen

#endif
