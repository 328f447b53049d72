#include "csv-format.h"

#include <sstream>

namespace flumen
{

std::string
FormatCsv(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows)
{
    auto quote = [](const std::string& s)
    {
        if (s.find_first_of(",\"\n") == std::string::npos)
        {
            return s;
        }
        std::string q = "\"";
        for (char c : s)
        {
            q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
        }
        return q + "\"";
    };
    std::string out;
    for (const auto* row : { &header })
    {
        for (size_t i = 0; i < row->size(); ++i)
        {
            out += (i ? "," : "") + quote((*row)[i]);
        }
        out += "\n";
    }
    for (const auto& row : rows)
    {
        for (size_t i = 0; i < row.size(); ++i)
        {
            out += (i ? "," : "") + quote(row[i]);
        }
        out += "\n";
    }
    return out;
}

std::vector<std::string>
SplitCsvFields(const std::string& line)
{
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
    {
        cells.push_back(cell);
    }
    if (!line.empty() && line.back() == ',')
    {
        cells.emplace_back();
    }
    return cells;
}

} // namespace flumen
