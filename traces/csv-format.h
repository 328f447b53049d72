// CSV text for result tables (results.csv, points.csv, ...): comma-separated, a cell quoted
// when it holds a comma, quote or newline (newlines become spaces, so one row is one line);
// and a line of unquoted cells split back.
#ifndef FLUMEN_CSV_FORMAT_H
#define FLUMEN_CSV_FORMAT_H

#include <string>
#include <vector>

namespace flumen
{

/** The header line, then one line per row. */
std::string FormatCsv(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);

/** A line's comma-separated cells, as they are (no quotes read): a trailing comma ends with
 * an empty cell, an empty line has none. */
std::vector<std::string> SplitCsvFields(const std::string& line);

} // namespace flumen

#endif
