#include "backend-options.h"

#include <fmt/format.h>

#include <stdexcept>

namespace flumen
{

const char* kBackendUsage
    = "  --backend B         local (default: here, in parallel) or slurm (SLURM job arrays)\n"
      "  --partition P, --time T, --cpus-per-task N, --throttle N, --sbatch-arg ARG\n"
      "                      with --backend slurm: the array's partition, time limit per task\n"
      "                      (HH:MM:SS, D-HH:MM:SS or minutes), CPUs per task, tasks running at\n"
      "                      once, and one more #SBATCH line each (repeatable)\n";

unsigned long
ParseWholeNumber(const std::string& option, const std::string& v, unsigned long lo,
                 unsigned long hi)
{
    unsigned long n = 0;
    try
    {
        size_t used = 0;
        // stoul accepts "-1" (as a huge number) and leading blanks: digits only.
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument(v);
        n = std::stoul(v, &used);
    }
    catch (const std::exception&)
    {
        throw std::invalid_argument(
            fmt::format("{}: expected a whole number, got '{}'", option, v));
    }
    if (n < lo || n > hi)
    {
        throw std::invalid_argument(fmt::format("{}: expected {}..{}, got {}", option, lo, hi, n));
    }
    return n;
}

bool
ParseBackendOption(int argc, char** argv, int& i, BackendOptions& o)
{
    std::string a = argv[i];
    std::string inlineValue;
    const bool hasInline = a.rfind("--", 0) == 0 && a.find('=') != std::string::npos;
    if (hasInline)
    {
        inlineValue = a.substr(a.find('=') + 1);
        a = a.substr(0, a.find('='));
    }
    if (a != "--backend" && a != "--partition" && a != "--time" && a != "--cpus-per-task"
        && a != "--throttle" && a != "--sbatch-arg")
        return false;
    std::string v;
    if (hasInline)
        v = inlineValue;
    else if (i + 1 < argc)
        v = argv[++i];
    else
        throw std::invalid_argument(a + ": expected a value");

    if (a == "--backend")
    {
        if (v != "local" && v != "slurm")
            throw std::invalid_argument("--backend: expected local or slurm, got '" + v + "'");
        o.backend = v == "slurm" ? PoolBackend::Slurm : PoolBackend::Local;
        return true;
    }
    o.slurmOptionGiven = true;
    if (a == "--partition")
    {
        if (v.empty() || v.find_first_of(" \t\n'\"") != std::string::npos)
            throw std::invalid_argument("--partition: expected a partition name, got '" + v + "'");
        o.slurm.partition = v;
    }
    else if (a == "--time")
    {
        if (!ValidSlurmTime(v))
            throw std::invalid_argument("--time: expected a SLURM time limit (HH:MM:SS, "
                                        "D-HH:MM:SS or minutes), got '"
                                        + v + "'");
        o.slurm.time = v;
    }
    else if (a == "--cpus-per-task")
        o.slurm.cpusPerTask = ParseWholeNumber(a, v, 1, 4096);
    else if (a == "--throttle")
        o.slurm.throttle = ParseWholeNumber(a, v, 1, 1000000);
    else
    {
        if (v.size() < 2 || v[0] != '-' || v.find('\n') != std::string::npos)
            throw std::invalid_argument(
                "--sbatch-arg: expected one sbatch option such as --mem=4G, got '" + v + "'");
        o.slurm.sbatchArgs.push_back(v);
    }
    return true;
}

void
CheckBackendOptions(const BackendOptions& o, const std::string& others)
{
    if (o.slurmOptionGiven && o.backend != PoolBackend::Slurm)
        throw std::invalid_argument(
            fmt::format("--partition, --time, --cpus-per-task, --throttle{} need --backend slurm",
                        others.empty() ? " and --sbatch-arg" : ", --sbatch-arg and " + others));
}

} // namespace flumen
