#include "run-tables.h"

#include "csv-format.h"
#include "input-file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace flumen::detail
{

namespace fs = std::filesystem;

size_t
Table::Column(const std::string& name) const
{
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
    {
        throw std::invalid_argument(fmt::format("{}: expected a column '{}' (header: {})", path,
                                                name, fmt::format("{}", fmt::join(header, ","))));
    }
    return static_cast<size_t>(it - header.begin());
}

double
Table::Number(size_t row, size_t column) const
{
    const std::string& cell = rows.at(row).at(column);
    size_t used = 0;
    double v = std::nan("");
    try
    {
        v = std::stod(cell, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used == 0 || used != cell.size())
    {
        throw std::invalid_argument(fmt::format("{}:{}: column '{}': expected a number, got "
                                                "'{}'",
                                                path, row + 2, header.at(column), cell));
    }
    return v;
}

Table
ReadTable(const fs::path& path)
{
    const InputFile file = ReadInputFile(path.string());
    if (!file.problem.empty())
    {
        throw std::invalid_argument(file.problem);
    }
    Table t;
    t.path = path.string();
    std::istringstream in(file.text);
    std::string line;
    size_t number = 0;
    while (std::getline(in, line))
    {
        ++number;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> cells = SplitCsvFields(line);
        if (t.header.empty())
        {
            t.header = std::move(cells);
            continue;
        }
        if (cells.size() != t.header.size())
        {
            throw std::invalid_argument(fmt::format("{}:{}: expected {} cells as the header has, "
                                                    "got {}",
                                                    t.path, number, t.header.size(), cells.size()));
        }
        t.rows.push_back(std::move(cells));
    }
    if (t.header.empty())
    {
        throw std::invalid_argument(fmt::format("{}: empty: expected a header line", t.path));
    }
    return t;
}

std::vector<Iteration>
ReadIterations(const fs::path& path)
{
    const Table t = ReadTable(path);
    const size_t it = t.Column("iteration"), w = t.Column("worker"), s = t.Column("start_s"),
                 e = t.Column("end_s"), f = t.Column("forward_s"), b = t.Column("backward_s"),
                 wa = t.Column("wait_s"), st = t.Column("step_s"), wu = t.Column("warmup"),
                 job = t.Column("job");
    std::vector<Iteration> rows;
    for (size_t r = 0; r < t.rows.size(); ++r)
    {
        Iteration i;
        i.job = t.rows[r][job];
        i.iteration = static_cast<int>(t.Number(r, it));
        i.worker = static_cast<int>(t.Number(r, w));
        i.start = t.Number(r, s);
        i.end = t.Number(r, e);
        i.forward = t.Number(r, f);
        i.backward = t.Number(r, b);
        i.wait = t.Number(r, wa);
        i.step = t.Number(r, st);
        i.warmup = t.Number(r, wu) != 0;
        rows.push_back(i);
    }
    return rows;
}

} // namespace flumen::detail
