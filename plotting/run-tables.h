// The CSV files a run or a sweep wrote, read for their pictures: any table (link.csv, ring.csv,
// results.csv) as its header and rows, and iterations.csv's rows. Part of `flumen plot`
// (run-plots.cc); not a public API.
#ifndef FLUMEN_RUN_TABLES_H
#define FLUMEN_RUN_TABLES_H

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace flumen::detail
{

// A CSV file a run wrote: its header and rows, every row as wide as the header.
struct Table
{
    std::string path;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    /** The column's index; throws std::invalid_argument naming the file if it has none. */
    size_t Column(const std::string& name) const;
    /** A cell as a number; throws std::invalid_argument naming file, line and column if not. */
    double Number(size_t row, size_t column) const;
};

/** Reads a CSV file; throws std::invalid_argument naming the file (and line) if it is bad. */
Table ReadTable(const std::filesystem::path& path);

// One measured iteration row of iterations.csv.
struct Iteration
{
    std::string job;
    int iteration = 0;
    int worker = 0;
    double start = 0, end = 0, forward = 0, backward = 0, wait = 0, step = 0;
    bool warmup = false;
};

/** iterations.csv's rows, in file order. */
std::vector<Iteration> ReadIterations(const std::filesystem::path& path);

} // namespace flumen::detail

#endif
