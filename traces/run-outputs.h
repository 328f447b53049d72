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
    double startS = 0;      //!< compute began
    double endS = 0;        //!< all-reduce completed
    double computeEndS = 0; //!< all-reduce began
    bool warmup = false;

    double DurationS() const { return endS - startS; }
    bool operator==(const IterationRow& o) const;
};

/** Header: iteration,worker,start_s,end_s,duration_s,compute_s,comm_s,warmup */
std::string FormatIterationsCsv(const std::vector<IterationRow>& rows);
/** Parses what FormatIterationsCsv wrote; errors name `source` and the line. */
std::vector<IterationRow> ParseIterationsCsv(const std::string& text, const std::string& source);

/** Creates `dir` if needed and writes iterations.csv and summary.json atomically. */
void WriteRunOutputs(const std::string& dir, const std::vector<IterationRow>& rows,
                     const nlohmann::json& summary);

} // namespace flumen

#endif
