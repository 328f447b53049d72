#include "run-drawings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace flumen::detail
{

namespace
{

std::vector<std::string>
JobsOf(const std::vector<Iteration>& rows)
{
    std::vector<std::string> jobs;
    for (const auto& r : rows)
    {
        if (std::find(jobs.begin(), jobs.end(), r.job) == jobs.end())
        {
            jobs.push_back(r.job);
        }
    }
    return jobs;
}

} // namespace

// The bottleneck port over time, two panels: the job's and the cross traffic's rate, and the
// queue with the drops and marks; a vertical line where the first job's worker 0 ends each
// iteration.
void
DrawBottleneck(Canvas& c, const Table& link, const std::vector<Iteration>& iterations,
               const std::string& port)
{
    const size_t t = link.Column("time_s"), jg = link.Column("job_gbps"),
                 cg = link.Column("cross_gbps"), qm = link.Column("queue_mean_bytes"),
                 qx = link.Column("queue_max_bytes"), dr = link.Column("drops"),
                 mk = link.Column("ecn_marks");
    std::string dat = "# time_s job_gbps cross_gbps queue_mean_MB queue_max_MB drops ecn_marks\n";
    bool drops = false, marks = false;
    for (size_t r = 0; r < link.rows.size(); ++r)
    {
        drops = drops || link.Number(r, dr) > 0;
        marks = marks || link.Number(r, mk) > 0;
        dat += fmt::format("{} {} {} {:.6f} {:.6f} {} {}\n", link.rows[r][t], link.rows[r][jg],
                           link.rows[r][cg], link.Number(r, qm) / 1e6, link.Number(r, qx) / 1e6,
                           link.rows[r][dr], link.rows[r][mk]);
    }
    c.Data("bottleneck.dat", dat);
    std::string boundaries;
    const std::string first = iterations.empty() ? "" : iterations.front().job;
    for (const auto& i : iterations)
    {
        if (i.job == first && i.worker == 0)
        {
            boundaries += fmt::format("set arrow from {0},graph 0 to {0},graph 1 nohead lc rgb "
                                      "'#888888' dt 3\n",
                                      i.end);
        }
    }
    c.script += fmt::format(
        "set output 'bottleneck.png'\nset multiplot layout 2,1 title '{} (dotted: the end of "
        "each iteration of {}, worker 0)' noenhanced\n{}"
        "set ylabel 'Gbps'\nset key top right\nunset xlabel\n"
        "plot 'bottleneck.dat' using 1:2 with lines lw 1.5 title 'job', '' using 1:3 with lines "
        "lw 1.5 title 'cross traffic'\n"
        "set ylabel 'queue (MB)'\n{}set xlabel 'simulated time (s)'\n"
        "plot 'bottleneck.dat' using 1:4 with lines title 'queue, mean in bin', '' using 1:5 "
        "with lines dt 2 title 'queue, max in bin'{}{}\n"
        "unset multiplot\nunset arrow\nunset y2tics\nunset y2label\n",
        port, first, boundaries,
        drops || marks ? "set y2label 'drops, marks per bin'\nset y2tics\n" : "",
        // Only series with points: gnuplot refuses a plot whose values are all undefined.
        drops ? ", '' using 1:($6>0?$6:1/0) axes x1y2 with points pt 7 ps 0.5 title 'drops'" : "",
        marks ? ", '' using 1:($7>0?$7:1/0) axes x1y2 with points pt 6 ps 0.5 title 'ECN marks'"
              : "");
    c.drawn.push_back("bottleneck.png");
}

// Each ring hop over the measured iteration of median length (the first job's worker 0): the
// injection rate of each hop, smoothed over 1 ms as the thesis's moving averages are.
void
DrawRingHops(Canvas& c, const Table& ring, const std::vector<Iteration>& iterations)
{
    std::vector<Iteration> measured;
    for (const auto& i : iterations)
    {
        if (!i.warmup && i.worker == 0 && i.job == iterations.front().job)
        {
            measured.push_back(i);
        }
    }
    if (measured.empty())
    {
        c.skipped.push_back("ring-hops.png: no measured iteration in iterations.csv");
        return;
    }
    std::sort(measured.begin(), measured.end(),
              [](const Iteration& a, const Iteration& b)
              { return a.end - a.start < b.end - b.start; });
    const Iteration& it = measured[measured.size() / 2];
    const size_t t = ring.Column("time_s");
    std::vector<size_t> hops;
    for (size_t k = 0; k < ring.header.size(); ++k)
    {
        if (k != t)
        {
            hops.push_back(k);
        }
    }
    const double bin = ring.rows.size() > 1 ? ring.Number(1, t) - ring.Number(0, t) : 1e-4;
    const int window = std::max(1, static_cast<int>(std::lround(1e-3 / bin)));
    std::string dat = "# time in the iteration (ms)";
    for (size_t h : hops)
    {
        dat += " " + ring.header[h];
    }
    dat += " (Gbps, moving average over " + std::to_string(window) + " bins)\n";
    int rowsOut = 0;
    for (size_t r = 0; r < ring.rows.size(); ++r)
    {
        const double time = ring.Number(r, t);
        if (time < it.start || time >= it.end)
        {
            continue;
        }
        dat += fmt::format("{:.4f}", 1e3 * (time - it.start));
        for (size_t h : hops)
        {
            double sum = 0;
            int n = 0;
            for (size_t q = r >= size_t(window - 1) ? r - (window - 1) : 0; q <= r; ++q)
            {
                sum += ring.Number(q, h);
                ++n;
            }
            dat += fmt::format(" {:.4f}", sum / n);
        }
        dat += "\n";
        ++rowsOut;
    }
    if (rowsOut == 0)
    {
        c.skipped.push_back("ring-hops.png: ring.csv has no bin in the iteration drawn");
        return;
    }
    c.Data("ring-hops.dat", dat);
    std::string plot;
    for (size_t k = 0; k < hops.size(); ++k)
    {
        std::string name = ring.header[hops[k]];
        name = name.substr(0, name.rfind("_gbps"));
        std::replace(name.begin(), name.end(), '_', ' ');
        plot += fmt::format("{}'ring-hops.dat' using 1:{} with lines lw 1.5 title '{}'",
                            k ? ", " : "", k + 2, name);
    }
    c.script += fmt::format("set output 'ring-hops.png'\nset title 'each ring hop over iteration "
                            "{} (worker 0: {:.4f} s, the median measured one): injection rate' "
                            "noenhanced\nset xlabel 'time in the iteration (ms)'\nset ylabel "
                            "'Gbps (1 ms moving average)'\nset key top right\nplot {}\n",
                            it.iteration, it.end - it.start, plot);
    c.drawn.push_back("ring-hops.png");
}

// The iteration-time CDF of each job (measured iterations, every worker).
void
DrawIterationCdf(Canvas& c, const std::vector<Iteration>& iterations)
{
    std::string plot;
    int k = 0;
    for (const std::string& job : JobsOf(iterations))
    {
        std::vector<double> d;
        for (const auto& i : iterations)
        {
            if (i.job == job && !i.warmup)
            {
                d.push_back(i.end - i.start);
            }
        }
        if (d.empty())
        {
            continue;
        }
        std::sort(d.begin(), d.end());
        std::string dat = "# iteration_s cumulative_fraction (job " + job + ")\n";
        for (size_t i = 0; i < d.size(); ++i)
        {
            dat += fmt::format("{:.9f} {:.6f}\n", d[i], double(i + 1) / d.size());
        }
        const std::string name = fmt::format("iteration-cdf.{}.dat", k);
        c.Data(name, dat);
        plot += fmt::format("{}'{}' using 1:2 with steps lw 2 title '{} ({} iterations)'",
                            k ? ", " : "", name, job, d.size());
        ++k;
    }
    if (k == 0)
    {
        c.skipped.push_back("iteration-cdf.png: no measured iteration in iterations.csv");
        return;
    }
    c.script += "set output 'iteration-cdf.png'\nset title 'iteration time, measured "
                "iterations of every worker'\nset xlabel 'iteration time (s)'\nset ylabel "
                "'cumulative fraction'\nset key bottom right noenhanced\nplot "
                + plot + "\n";
    c.drawn.push_back("iteration-cdf.png");
}

// Several jobs: one band per job over time (its worker 0), its compute and its wait for
// communication, warm-up included.
void
DrawJobBands(Canvas& c, const std::vector<Iteration>& iterations, const Table* comm)
{
    const std::vector<std::string> jobs = JobsOf(iterations);
    if (jobs.size() < 2)
    {
        c.skipped.push_back("jobs.png: one job only");
        return;
    }
    std::string compute = "# job_index from_s to_s (compute: forward + backward + step)\n";
    std::string waiting = "# job_index from_s to_s (waiting for communication)\n";
    bool waited = false;
    std::string ytics;
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        ytics += fmt::format("{}'{}' {}", j ? ", " : "", jobs[j], j);
        for (const auto& i : iterations)
        {
            if (i.job != jobs[j] || i.worker != 0)
            {
                continue;
            }
            const double computed = i.start + i.forward + i.backward;
            compute += fmt::format("{} {:.9f} {:.9f}\n", j, i.start, computed);
            if (i.wait > 0)
            {
                waiting += fmt::format("{} {:.9f} {:.9f}\n", j, computed, computed + i.wait);
                waited = true;
            }
        }
    }
    // comm.csv (outputs.comm_csv): each all-reduce of the job's rank 0, a thin band above.
    std::string reduce = "# job_index from_s to_s (all-reduces of rank 0)\n";
    if (comm)
    {
        const size_t job = comm->Column("job"), start = comm->Column("start_s"),
                     end = comm->Column("end_s");
        for (size_t r = 0; r < comm->rows.size(); ++r)
        {
            const auto j = std::find(jobs.begin(), jobs.end(), comm->rows[r][job]);
            if (j != jobs.end())
            {
                reduce += fmt::format("{} {:.9f} {:.9f}\n", j - jobs.begin(),
                                      comm->Number(r, start), comm->Number(r, end));
            }
        }
        c.Data("jobs-comm.dat", reduce);
    }
    c.Data("jobs-compute.dat", compute);
    c.Data("jobs-waiting.dat", waiting);
    c.script += fmt::format(
        "set output 'jobs.png'\nset title 'each job over time (its worker 0)'\nset xlabel "
        "'simulated time (s)'\nunset ylabel\nset ytics ({})\nset yrange [-0.5:{}]\nset key "
        "below\nplot 'jobs-compute.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.3) with "
        "boxxyerror fs solid 0.5 lc rgb '#4477aa' title 'compute'{}\nunset ytics\nset ytics\n"
        "set autoscale y\n",
        ytics, jobs.size() - 0.5,
        std::string(waited ? ", 'jobs-waiting.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.3) with "
                             "boxxyerror fs solid 0.7 lc rgb '#cc6677' title 'waiting for "
                             "communication'"
                           : "")
            + (comm ? ", 'jobs-comm.dat' using (($2+$3)/2):($1+0.38):(($3-$2)/2):(0.08) with "
                      "boxxyerror fs solid 0.9 lc rgb '#228833' title 'all-reduce (comm.csv)'"
                    : ""));
    c.drawn.push_back("jobs.png");
}

// A sweep: its first swept key against the mean and p99 (one line per value of a second key).
void
DrawSweep(Canvas& c, const Table& results)
{
    const size_t seed = results.Column("seed"), iterations = results.Column("iterations"),
                 mean = results.Column("iteration_mean_s"), p99 = results.Column("iteration_p99_s"),
                 status = results.Column("status");
    std::vector<size_t> keys;
    for (size_t k = seed + 1; k < iterations; ++k)
    {
        keys.push_back(k);
    }
    if (keys.empty())
    {
        c.skipped.push_back("sweep.png: results.csv has no swept key");
        return;
    }
    const size_t x = keys.front();
    std::map<std::string, std::map<double, std::vector<std::pair<double, double>>>> lines;
    bool numeric = true;
    for (size_t r = 0; r < results.rows.size(); ++r)
    {
        if (results.rows[r][status] != "done")
        {
            continue;
        }
        std::string line;
        for (size_t k = 1; k < keys.size(); ++k)
        {
            line += fmt::format("{}{}={}", line.empty() ? "" : " ", results.header[keys[k]],
                                results.rows[r][keys[k]]);
        }
        double xv = 0;
        try
        {
            xv = results.Number(r, x);
        }
        catch (const std::invalid_argument&)
        {
            numeric = false;
            break;
        }
        lines[line][xv].emplace_back(results.Number(r, mean), results.Number(r, p99));
    }
    if (!numeric)
    {
        c.skipped.push_back(
            fmt::format("sweep.png: the swept key {} is not numeric", results.header[x]));
        return;
    }
    if (lines.empty())
    {
        c.skipped.push_back("sweep.png: no finished point in results.csv");
        return;
    }
    std::string plot;
    int k = 0;
    for (const auto& [line, points] : lines)
    {
        std::string dat = fmt::format("# {} mean_s p99_s (seeds averaged){}\n", results.header[x],
                                      line.empty() ? "" : ", " + line);
        for (const auto& [xv, runs] : points)
        {
            double m = 0, p = 0;
            for (const auto& [a, b] : runs)
            {
                m += a / runs.size();
                p += b / runs.size();
            }
            dat += fmt::format("{} {:.9f} {:.9f}\n", xv, m, p);
        }
        const std::string name = fmt::format("sweep.{}.dat", k);
        c.Data(name, dat);
        const std::string label = line.empty() ? "" : line + ": ";
        plot += fmt::format("{}'{}' using 1:2 with linespoints lw 2 pt 7 lc {} title '{}mean', "
                            "'{}' using 1:3 with linespoints dt 2 pt 6 lc {} title '{}p99'",
                            k ? ", " : "", name, k + 1, label, name, k + 1, label);
        ++k;
    }
    c.script += fmt::format("set output 'sweep.png'\nset title 'the sweep: iteration time "
                            "against {}' noenhanced\nset xlabel '{}' noenhanced\nset ylabel "
                            "'iteration time (s)'\nset key top left noenhanced\nplot {}\n",
                            results.header[x], results.header[x], plot);
    c.drawn.push_back("sweep.png");
}

} // namespace flumen::detail
