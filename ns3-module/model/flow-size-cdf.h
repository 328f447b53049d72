/*
 * A flow-size distribution given as the testbed generator's CDF file: one line per point,
 * `size_in_packets 1 cumulative_probability`, probabilities non-decreasing and ending at 1.
 * The testbed drew sizes as a weighted choice among the listed sizes (numpy's choice with
 * weights = CDF steps), not by interpolation: the mean of websearch_cdf.txt is then 1622.94
 * packets, the figure the testbed documents. Sizes in bytes = packets x packet size (1460).
 */
#ifndef FLUMEN_FLOW_SIZE_CDF_H
#define FLUMEN_FLOW_SIZE_CDF_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/** Bad CDF input; the message names the file and line and what was expected. */
class FlowSizeCdfError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

class FlowSizeCdf
{
  public:
    struct Point
    {
        double packets;    //!< flow size in packets
        double cumulative; //!< P(size <= packets)
    };

    FlowSizeCdf() = default;
    FlowSizeCdf(std::vector<Point> points, uint32_t packetBytes = 1460);

    /** Reads a CDF file; throws FlowSizeCdfError naming file and line on bad input. */
    static FlowSizeCdf Load(const std::string& path, uint32_t packetBytes = 1460);
    /** Parses CDF text; `source` names it in errors. */
    static FlowSizeCdf Parse(const std::string& text, const std::string& source,
                             uint32_t packetBytes = 1460);

    /** Flow size in bytes for a uniform draw u in [0, 1): the first point with cumulative > u. */
    uint64_t SampleBytes(double u) const;
    /** Mean flow size in bytes under the weighted-choice reading. */
    double MeanBytes() const;
    /** P(size <= bytes) under the weighted-choice reading (a step function). */
    double CdfAtBytes(double bytes) const;
    const std::vector<Point>& GetPoints() const { return m_points; }
    uint32_t GetPacketBytes() const { return m_packetBytes; }

  private:
    std::vector<Point> m_points;
    uint32_t m_packetBytes = 1460;
};

} // namespace ns3

#endif
