#include "fit-search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace flumen
{

double
DimensionValue(const SearchDimension& d, double u)
{
    u = std::clamp(u, 0.0, 1.0);
    double v = d.logScale ? std::exp(std::log(d.lo) + u * (std::log(d.hi) - std::log(d.lo)))
                          : d.lo + u * (d.hi - d.lo);
    if (d.integer)
    {
        v = std::round(v);
    }
    return std::clamp(v, d.lo, d.hi);
}

double
DimensionPosition(const SearchDimension& d, double value)
{
    if (!(d.hi > d.lo))
    {
        return 0;
    }
    double u = d.logScale ? (std::log(value) - std::log(d.lo)) / (std::log(d.hi) - std::log(d.lo))
                          : (value - d.lo) / (d.hi - d.lo);
    return std::clamp(u, 0.0, 1.0);
}

namespace
{

class Search
{
  public:
    Search(const std::vector<SearchDimension>& dims, const BatchLoss& loss)
        : m_dims(dims), m_loss(loss)
    {
    }

    // Evaluates the points not seen yet (in one batch); returns every point's loss.
    std::vector<double> Evaluate(const std::vector<std::vector<double>>& xs,
                                 const std::string& phase)
    {
        std::vector<std::vector<double>> fresh;
        for (const auto& x : xs)
        {
            if (!m_cache.count(x) && std::find(fresh.begin(), fresh.end(), x) == fresh.end())
            {
                fresh.push_back(x);
            }
        }
        if (!fresh.empty())
        {
            std::vector<double> got = m_loss(fresh);
            if (got.size() != fresh.size())
            {
                throw std::logic_error("CoordinateSearch: the loss returned a wrong count");
            }
            for (size_t i = 0; i < fresh.size(); ++i)
            {
                double l = std::isnan(got[i]) ? std::numeric_limits<double>::infinity() : got[i];
                m_cache[fresh[i]] = l;
                m_result.evaluations.push_back({ fresh[i], l, phase });
            }
        }
        std::vector<double> out;
        for (const auto& x : xs)
        {
            out.push_back(m_cache.at(x));
        }
        return out;
    }

    // Tries the candidates for coordinate k; moves the best point if one is strictly better.
    bool TryCoordinate(size_t k, const std::vector<double>& values, const std::string& phase)
    {
        std::vector<std::vector<double>> xs;
        for (double v : values)
        {
            std::vector<double> x = m_best;
            x[k] = v;
            xs.push_back(x);
        }
        std::vector<double> ls = Evaluate(xs, phase);
        bool moved = false;
        for (size_t i = 0; i < xs.size(); ++i)
        {
            if (ls[i] < m_bestLoss)
            {
                m_bestLoss = ls[i];
                m_best = xs[i];
                moved = true;
            }
        }
        return moved;
    }

    SearchResult Run(const std::vector<double>& start, const SearchOptions& o)
    {
        m_best = start;
        m_bestLoss = Evaluate({ start }, "start")[0];
        m_result.startLoss = m_bestLoss;
        const int grid = std::max(2, o.gridPoints);
        m_result.stopped = fmt::format("{} grid cycles", o.maxCycles);
        for (int cycle = 1; cycle <= o.maxCycles; ++cycle)
        {
            bool moved = false;
            for (size_t k = 0; k < m_dims.size(); ++k)
            {
                std::vector<double> values;
                for (int i = 0; i < grid; ++i)
                {
                    values.push_back(DimensionValue(m_dims[k], double(i) / (grid - 1)));
                }
                moved = TryCoordinate(k, values, fmt::format("grid {}", cycle)) || moved;
            }
            if (!moved)
            {
                m_result.stopped = fmt::format("grid cycle {} moved no coordinate", cycle);
                break;
            }
        }
        double step = 1.0 / (grid - 1);
        for (int round = 1; round <= o.refineRounds; ++round)
        {
            step /= 2;
            for (size_t k = 0; k < m_dims.size(); ++k)
            {
                double u = DimensionPosition(m_dims[k], m_best[k]);
                std::vector<double> values;
                for (double v :
                     { DimensionValue(m_dims[k], u - step), DimensionValue(m_dims[k], u + step) })
                {
                    if (v != m_best[k])
                    {
                        values.push_back(v);
                    }
                }
                TryCoordinate(k, values, fmt::format("refine {}", round));
            }
        }
        m_result.best = m_best;
        m_result.bestLoss = m_bestLoss;
        return m_result;
    }

  private:
    const std::vector<SearchDimension>& m_dims;
    const BatchLoss& m_loss;
    std::map<std::vector<double>, double> m_cache;
    std::vector<double> m_best;
    double m_bestLoss = 0;
    SearchResult m_result;
};

} // namespace

SearchResult
CoordinateSearch(const std::vector<SearchDimension>& dims, const std::vector<double>& start,
                 const BatchLoss& loss, const SearchOptions& options)
{
    if (dims.empty() || start.size() != dims.size())
    {
        throw std::invalid_argument("CoordinateSearch: one start value per dimension expected");
    }
    for (size_t k = 0; k < dims.size(); ++k)
    {
        const auto& d = dims[k];
        if (!(d.hi > d.lo) || (d.logScale && !(d.lo > 0)) || !(start[k] >= d.lo)
            || !(start[k] <= d.hi))
        {
            throw std::invalid_argument(fmt::format(
                "CoordinateSearch: dimension {}: expected lo < hi (lo > 0 in log scale) and a "
                "start inside",
                k));
        }
    }
    return Search(dims, loss).Run(start, options);
}

} // namespace flumen
