/*
 * CASSINI's time shifts (Rajasekaran, Ghobadi, Akella, NSDI '24): jobs whose rings share links
 * are given start offsets so that their communication phases interleave. This searches, for a
 * scenario's `jobs`, the offsets that minimise their mean iteration time: job 0 stays at 0,
 * each other job's offset is tried at `steps` points of one iteration period (the longest mean
 * iteration time of the unshifted run), one job at a time with the others at their best so far
 * (coordinate descent), for at most `passes` passes. Every candidate is a whole run of the
 * scenario, so each is judged by the simulator with everything else it models (cross traffic,
 * the transport, MLTCP). CASSINI solves its shifts from each job's measured traffic pattern on
 * a geometric abstraction; the runs stand in for that here.
 */
#ifndef FLUMEN_TIME_SHIFT_SEARCH_H
#define FLUMEN_TIME_SHIFT_SEARCH_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace flumen
{

struct ShiftSearchOptions
{
    uint32_t steps = 12;              //!< offsets tried per job and pass, over one period
    uint32_t passes = 2;              //!< coordinate-descent passes (fewer if one changes nothing)
    std::ostream* progress = nullptr; //!< a line per run (nullptr: none)
};

/** One run of the search: each job's offset and what it achieved. */
struct ShiftPoint
{
    std::vector<double> startS;
    std::vector<double> meanS;   //!< each job's mean iteration time
    std::vector<double> p99S;    //!< each job's p99
    std::vector<double> overlap; //!< each job's share of all-reduce time beside another's
    double objective = 0;        //!< the mean of the jobs' means
};

struct ShiftSearchResult
{
    std::vector<std::string> jobs; //!< the jobs' names
    double periodS = 0;
    uint32_t steps = 0;   //!< offsets tried per job and pass
    ShiftPoint unshifted; //!< every job at 0
    ShiftPoint best;
    std::vector<ShiftPoint> tried; //!< every run, in order (the unshifted one first)
};

/**
 * Searches the offsets of `scenario` (a scenario with at least two `jobs`, --set overrides
 * applied; `source` names it in errors). Throws ScenarioError for a scenario without two jobs
 * or one that does not resolve, RunError for a run that fails.
 */
ShiftSearchResult SearchTimeShifts(const nlohmann::json& scenario, const std::string& source,
                                   const ShiftSearchOptions& options);

/** The scenario with the offsets of `point` set. */
nlohmann::json WithShifts(const nlohmann::json& scenario, const std::vector<double>& startS);

/** shifts.csv: a row per run (offsets, each job's mean, p99 and overlap, the objective). */
std::string FormatShiftCsv(const ShiftSearchResult& result);
/** report.md: the best offsets against no shift, job by job. */
std::string FormatShiftReport(const ShiftSearchResult& result, const std::string& source);

} // namespace flumen

#endif
