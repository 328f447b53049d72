// The search behind fitting testbed parameters (testbed-fit.h): a coordinate search on a grid,
// then a local refinement by halving steps.
//
// Why this method: each evaluation of the objective is a set of simulations whose results
// move in steps as a parameter crosses a threshold (a buffer that starts to drop, a timeout
// that starts to fire), some parameters are integers, and simulations of a finite number of
// iterations are noisy. Gradients from finite differences are unreliable there; a grid sees
// the whole range at once, needs no derivative, and its evaluations of one coordinate are
// independent, so they run in parallel. The refinement then narrows around the best grid
// point. Every evaluation is cached by its values, so a point is never simulated twice.
#ifndef FLUMEN_FIT_SEARCH_H
#define FLUMEN_FIT_SEARCH_H

#include <functional>
#include <string>
#include <vector>

namespace flumen
{

/** One searched coordinate: a closed range, searched in log scale or linearly. */
struct SearchDimension
{
    double lo = 0;
    double hi = 1;
    bool integer = false;  //!< values rounded to integers
    bool logScale = false; //!< grid even in log(value) (needs lo > 0)
};

struct SearchOptions
{
    int gridPoints = 5;   //!< per coordinate, ends included
    int maxCycles = 3;    //!< grid passes over every coordinate, stopping early when none moves
    int refineRounds = 3; //!< halvings of the step around the best point
};

struct SearchEvaluation
{
    std::vector<double> x;
    double loss = 0;
    std::string phase; //!< "start", "grid <cycle>", "refine <round>"
};

struct SearchResult
{
    std::vector<double> best;
    double bestLoss = 0;
    double startLoss = 0;
    std::vector<SearchEvaluation> evaluations; //!< each distinct point once, in order
    std::string stopped;                       //!< why the grid phase ended
};

/**
 * Losses of a batch of points (in order); the batch is evaluated together so that its
 * simulations can run in parallel. A point that cannot be evaluated gets +infinity.
 */
using BatchLoss = std::function<std::vector<double>(const std::vector<std::vector<double>>&)>;

/** The value at position u in [0, 1] of a dimension (log or linear, rounded if integer). */
double DimensionValue(const SearchDimension& d, double u);
/** The inverse of DimensionValue (unrounded), clamped to [0, 1]. */
double DimensionPosition(const SearchDimension& d, double value);

/**
 * Minimises `loss` from `start` (one value per dimension, inside its range): a coordinate
 * search over options.gridPoints values of each dimension in turn, the others held at the best
 * so far, until a cycle moves nothing or options.maxCycles; then options.refineRounds rounds
 * that try half a grid step (then a quarter, ...) on each side of the best value of each
 * coordinate. Ties keep the earlier point, so the result does not depend on batch order.
 */
SearchResult CoordinateSearch(const std::vector<SearchDimension>& dims,
                              const std::vector<double>& start, const BatchLoss& loss,
                              const SearchOptions& options = SearchOptions());

} // namespace flumen

#endif
