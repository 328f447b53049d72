#include "run-summary.h"

#include "input-file.h"

#include <fmt/format.h>

#include <algorithm>

namespace flumen
{

using nlohmann::json;

namespace
{

json
StatsToJson(const SummaryStatistics& s)
{
    return json{ { "mean", s.mean }, { "stdev", s.stdev }, { "p50", s.p50 },
                 { "p99", s.p99 },   { "min", s.min },     { "max", s.max } };
}

json
PortToJson(const PortSummary& p)
{
    json j{ { "port", p.port },
            { "utilization", p.utilization },
            { "drops", p.drops },
            { "ecn_marks", p.ecnMarks },
            { "mean_queue_bytes", p.meanQueueBytes },
            { "max_queue_bytes", p.maxQueueBytes } };
    for (const auto& [key, buffer] : { std::pair{ "host_buffer", &p.hostBuffer },
                                       std::pair{ "switch_buffer", &p.switchBuffer } })
    {
        if (*buffer)
        {
            j[key] = { { "overflows", (*buffer)->overflows },
                       { "windows_cut", (*buffer)->windowsCut } };
        }
    }
    return j;
}

// Reads typed fields of one object of summary.json; errors name the file and the dotted key.
class Reader
{
  public:
    Reader(const json& node, std::string source, std::string prefix)
        : m_node(node), m_source(std::move(source)), m_prefix(std::move(prefix))
    {
        if (!m_node.is_object())
        {
            Fail("", "an object");
        }
    }

    bool Has(const std::string& key) const { return m_node.contains(key); }

    template <typename T> T Get(const std::string& key) const
    {
        if (!m_node.contains(key))
        {
            Fail(key, "present");
        }
        const json& v = m_node.at(key);
        bool ok = false;
        if constexpr (std::is_same_v<T, bool>)
            ok = v.is_boolean();
        else if constexpr (std::is_same_v<T, std::string>)
            ok = v.is_string();
        else if constexpr (std::is_integral_v<T>)
            ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
        else
            ok = v.is_number();
        if (!ok)
        {
            Fail(key, std::is_same_v<T, bool>          ? "true or false"
                      : std::is_same_v<T, std::string> ? "a string"
                      : std::is_integral_v<T>          ? "a non-negative integer"
                                                       : "a number");
        }
        return v.get<T>();
    }

    Reader Object(const std::string& key) const
    {
        if (!m_node.contains(key))
        {
            Fail(key, "present");
        }
        return Reader(m_node.at(key), m_source, Path(key));
    }

    /** Calls `read` with a Reader of each object of the array at `key` ("jobs[2]" in errors). */
    template <typename F>
    void ForEach(const std::string& key, const std::string& expected, F read) const
    {
        const json& items = Raw(key);
        if (!items.is_array())
        {
            Fail(key, expected);
        }
        for (size_t i = 0; i < items.size(); ++i)
        {
            read(Reader(items[i], m_source, fmt::format("{}[{}]", Path(key), i)));
        }
    }

    std::vector<std::string> Strings(const std::string& key, const std::string& expected) const
    {
        const json& items = Raw(key);
        if (!items.is_array()
            || !std::all_of(items.begin(), items.end(),
                            [](const json& k) { return k.is_string(); }))
        {
            Fail(key, expected);
        }
        return items.get<std::vector<std::string>>();
    }

    const json& Raw(const std::string& key) const
    {
        if (!m_node.contains(key))
        {
            Fail(key, "present");
        }
        return m_node.at(key);
    }

    [[noreturn]] void Fail(const std::string& key, const std::string& expected) const
    {
        throw RunSummaryError(fmt::format("{}: key '{}': expected {}", m_source,
                                          key.empty() ? m_prefix : Path(key), expected));
    }

  private:
    std::string Path(const std::string& key) const
    {
        return m_prefix.empty() ? key : m_prefix + "." + key;
    }

    const json& m_node;
    std::string m_source;
    std::string m_prefix;
};

SummaryStatistics
StatsFrom(const Reader& r)
{
    SummaryStatistics s;
    s.mean = r.Get<double>("mean");
    s.stdev = r.Get<double>("stdev");
    s.p50 = r.Get<double>("p50");
    s.p99 = r.Get<double>("p99");
    s.min = r.Get<double>("min");
    s.max = r.Get<double>("max");
    return s;
}

PortSummary
PortFrom(const Reader& r)
{
    PortSummary p;
    p.port = r.Get<std::string>("port");
    p.utilization = r.Get<double>("utilization");
    p.drops = r.Get<uint64_t>("drops");
    p.ecnMarks = r.Get<uint64_t>("ecn_marks");
    p.meanQueueBytes = r.Get<double>("mean_queue_bytes");
    p.maxQueueBytes = r.Get<uint64_t>("max_queue_bytes");
    for (const auto& [key, buffer] : { std::pair{ "host_buffer", &p.hostBuffer },
                                       std::pair{ "switch_buffer", &p.switchBuffer } })
    {
        if (r.Has(key))
        {
            const Reader b = r.Object(key);
            *buffer
                = BufferLossSummary{ b.Get<uint64_t>("overflows"), b.Get<uint64_t>("windows_cut") };
        }
    }
    return p;
}

void
WindowFrom(const Reader& r, double& start, double& end)
{
    const json& window = r.Raw("measurement_window_s");
    if (!window.is_array() || window.size() != 2 || !window[0].is_number()
        || !window[1].is_number())
    {
        r.Fail("measurement_window_s", "[start, end] in seconds");
    }
    start = window[0].get<double>();
    end = window[1].get<double>();
}

void
FiguresToJson(const JobFigures& s, json& j)
{
    j["iterations"] = s.iterations;
    j["warmup_iterations"] = s.warmupIterations;
    j["workers"] = s.workers;
    j["iteration_time_s"] = StatsToJson(s.iterationTimeS);
    if (s.jobFinished)
    {
        j["job_finished"] = *s.jobFinished;
    }
    if (s.unfinished)
    {
        j["iterations_completed"] = s.unfinished->iterationsCompleted;
        j["iteration_time_lower_bound_s"] = s.unfinished->lowerBoundS;
        j["iteration_time_lower_bound_strict"] = s.unfinished->strict;
    }
    if (s.model)
    {
        const ModelSummary& m = *s.model;
        j["model"] = { { "name", m.name },
                       { "parameters", m.parameters },
                       { "compute_s", m.computeS },
                       { "forward_s", m.forwardS },
                       { "backward_s", m.backwardS },
                       { "step_s", m.stepS },
                       { "gradient_tensors", m.gradientTensors },
                       { "compute_jitter_cv", m.computeJitterCv },
                       { "ring_bytes_per_worker", m.ringBytesPerWorker },
                       { "idle_estimate_s", m.idleEstimateS } };
    }
    j["dl_goodput_gbps"] = s.dlGoodputGbps;
    if (s.phasesS)
    {
        j["phases_s"] = { { "forward", s.phasesS->forward },
                          { "backward", s.phasesS->backward },
                          { "wait", s.phasesS->wait },
                          { "step", s.phasesS->step } };
    }
    if (s.allReducesPerIteration)
    {
        j["all_reduces_per_iteration"] = *s.allReducesPerIteration;
    }
}

void
FiguresFrom(const Reader& r, JobFigures& s)
{
    s.iterations = r.Get<uint32_t>("iterations");
    s.warmupIterations = r.Get<uint32_t>("warmup_iterations");
    s.workers = r.Get<uint32_t>("workers");
    s.iterationTimeS = StatsFrom(r.Object("iteration_time_s"));
    if (r.Has("job_finished"))
    {
        s.jobFinished = r.Get<bool>("job_finished");
    }
    if (r.Has("iteration_time_lower_bound_s"))
    {
        UnfinishedJob u;
        u.iterationsCompleted = r.Get<uint32_t>("iterations_completed");
        u.lowerBoundS = r.Get<double>("iteration_time_lower_bound_s");
        u.strict = r.Get<bool>("iteration_time_lower_bound_strict");
        s.unfinished = u;
    }
    if (r.Has("model"))
    {
        Reader m = r.Object("model");
        ModelSummary ms;
        ms.name = m.Get<std::string>("name");
        ms.parameters = m.Get<uint64_t>("parameters");
        ms.computeS = m.Get<double>("compute_s");
        ms.forwardS = m.Get<double>("forward_s");
        ms.backwardS = m.Get<double>("backward_s");
        ms.stepS = m.Get<double>("step_s");
        ms.gradientTensors = m.Get<uint64_t>("gradient_tensors");
        ms.computeJitterCv = m.Get<double>("compute_jitter_cv");
        ms.ringBytesPerWorker = m.Get<uint64_t>("ring_bytes_per_worker");
        ms.idleEstimateS = m.Get<double>("idle_estimate_s");
        s.model = ms;
    }
    s.dlGoodputGbps = r.Get<double>("dl_goodput_gbps");
    if (r.Has("phases_s"))
    {
        Reader p = r.Object("phases_s");
        s.phasesS = PhaseSummary{ p.Get<double>("forward"), p.Get<double>("backward"),
                                  p.Get<double>("wait"), p.Get<double>("step") };
    }
    if (r.Has("all_reduces_per_iteration"))
    {
        s.allReducesPerIteration = r.Get<double>("all_reduces_per_iteration");
    }
}

} // namespace

json
ToJson(const RunSummary& s)
{
    json j;
    j["name"] = s.name;
    j["engine"] = s.engine;
    if (!s.engineIgnores.empty())
    {
        j["engine_ignores"] = s.engineIgnores;
    }
    if (!s.engineAuto.empty())
    {
        j["engine_auto"] = s.engineAuto;
    }
    if (!s.engineDomain.empty())
    {
        j["engine_domain"] = s.engineDomain;
    }
    FiguresToJson(s, j);
    if (!s.jobs.empty())
    {
        j["jobs"] = json::array();
        for (const JobSummary& job : s.jobs)
        {
            json o = { { "name", job.name },
                       { "hosts", job.hosts },
                       { "transport", job.transport },
                       { "collective", job.collective },
                       { "start_s", job.startS },
                       { "measurement_window_s", { job.windowStartS, job.windowEndS } } };
            if (job.commOverlap)
            {
                o["comm_overlap"] = *job.commOverlap;
            }
            if (!job.flowRing.empty())
            {
                o["flow_ring"] = job.flowRing;
            }
            FiguresToJson(job, o);
            j["jobs"].push_back(o);
        }
    }
    const CrossTrafficSummary& c = s.crossTraffic;
    j["cross_traffic"] = { { "type", c.type },
                           { "offered_gbps", c.offeredGbps },
                           { "achieved_gbps", c.achievedGbps } };
    if (c.scheduledGbps)
    {
        j["cross_traffic"]["scheduled_gbps"] = *c.scheduledGbps;
    }
    if (c.flows)
    {
        j["cross_traffic"]["flows"] = { { "started", c.flows->started },
                                        { "completed", c.flows->completed },
                                        { "failed", c.flows->failed },
                                        { "open_at_end", c.flows->openAtEnd },
                                        { "fct_s", StatsToJson(c.flows->fctS) } };
    }
    if (s.rdma)
    {
        j["rdma"] = { { "cnps", s.rdma->cnps },
                      { "naks", s.rdma->naks },
                      { "timeouts", s.rdma->timeouts },
                      { "packets_retransmitted", s.rdma->packetsRetransmitted },
                      { "pfc_pauses", s.rdma->pfcPauses } };
    }
    if (s.loss)
    {
        j["loss"] = { { "requested_percent", s.loss->requestedPercent },
                      { "hosts", s.loss->hosts },
                      { "applied_percent", s.loss->AppliedPercent() },
                      { "packets_arrived", s.loss->packetsArrived },
                      { "packets_lost", s.loss->packetsLost } };
    }
    j["bottleneck"] = PortToJson(s.bottleneck);
    j["ports"] = json::array();
    for (const auto& p : s.ports)
    {
        j["ports"].push_back(PortToJson(p));
    }
    if (!s.ringHops.empty())
    {
        j["ring_hops"] = json::array();
        for (const auto& h : s.ringHops)
        {
            j["ring_hops"].push_back({ { "from", h.from },
                                       { "to", h.to },
                                       { "mean_gbps", h.meanGbps },
                                       { "injection_gbps", h.injectionGbps } });
        }
    }
    j["measurement_window_s"] = { s.windowStartS, s.windowEndS };
    if (s.windowIsWholeRun)
    {
        j["measurement_window_whole_run"] = true;
    }
    j["simulated_time_s"] = s.simulatedTimeS;
    j["wall_time_s"] = s.wallTimeS;
    j["wall_per_simulated_s"] = s.wallPerSimulatedS;
    j["events"] = s.events;
    j["packets"] = { { "hops", s.packetHops }, { "tor_forwarded", s.torForwardedPackets } };
    j["scenario"] = s.scenario;
    return j;
}

RunSummary
RunSummaryFromJson(const json& j, const std::string& source)
{
    Reader r(j, source, "");
    RunSummary s;
    s.name = r.Get<std::string>("name");
    s.engine = r.Has("engine") ? r.Get<std::string>("engine") : "packet"; // older runs: packet
    if (r.Has("engine_auto"))
    {
        s.engineAuto = r.Get<std::string>("engine_auto");
    }
    if (r.Has("engine_domain"))
    {
        s.engineDomain = r.Get<std::string>("engine_domain");
    }
    if (r.Has("engine_ignores"))
    {
        s.engineIgnores = r.Strings("engine_ignores", "a list of keys");
    }
    FiguresFrom(r, s);
    if (r.Has("jobs"))
    {
        r.ForEach("jobs", "an array of jobs",
                  [&s](const Reader& o)
                  {
                      JobSummary job;
                      job.name = o.Get<std::string>("name");
                      job.hosts = o.Strings("hosts", "a list of host names");
                      job.transport = o.Get<std::string>("transport");
                      job.collective = o.Get<std::string>("collective");
                      job.startS = o.Get<double>("start_s");
                      WindowFrom(o, job.windowStartS, job.windowEndS);
                      if (o.Has("comm_overlap"))
                      {
                          job.commOverlap = o.Get<double>("comm_overlap");
                      }
                      if (o.Has("flow_ring"))
                      {
                          job.flowRing = o.Get<std::string>("flow_ring");
                      }
                      FiguresFrom(o, job);
                      s.jobs.push_back(job);
                  });
    }
    Reader c = r.Object("cross_traffic");
    s.crossTraffic.type = c.Get<std::string>("type");
    s.crossTraffic.offeredGbps = c.Get<double>("offered_gbps");
    s.crossTraffic.achievedGbps = c.Get<double>("achieved_gbps");
    if (c.Has("scheduled_gbps"))
    {
        s.crossTraffic.scheduledGbps = c.Get<double>("scheduled_gbps");
    }
    if (c.Has("flows"))
    {
        Reader f = c.Object("flows");
        FlowsSummary fs;
        fs.started = f.Get<uint64_t>("started");
        fs.completed = f.Get<uint64_t>("completed");
        fs.failed = f.Get<uint64_t>("failed");
        fs.openAtEnd = f.Get<uint64_t>("open_at_end");
        fs.fctS = StatsFrom(f.Object("fct_s"));
        s.crossTraffic.flows = fs;
    }
    if (r.Has("rdma"))
    {
        Reader d = r.Object("rdma");
        s.rdma = RdmaSummary{ d.Get<uint64_t>("cnps"), d.Get<uint64_t>("naks"),
                              d.Get<uint64_t>("timeouts"), d.Get<uint64_t>("packets_retransmitted"),
                              d.Get<uint64_t>("pfc_pauses") };
    }
    if (r.Has("loss"))
    {
        Reader l = r.Object("loss");
        s.loss = LossSummary{ l.Get<double>("requested_percent"), l.Get<std::string>("hosts"),
                              l.Get<uint64_t>("packets_arrived"), l.Get<uint64_t>("packets_lost") };
    }
    s.bottleneck = PortFrom(r.Object("bottleneck"));
    r.ForEach("ports", "an array of ports",
              [&s](const Reader& p) { s.ports.push_back(PortFrom(p)); });
    if (r.Has("ring_hops"))
    {
        r.ForEach("ring_hops", "an array of ring hops",
                  [&s](const Reader& h)
                  {
                      s.ringHops.push_back({ h.Get<std::string>("from"), h.Get<std::string>("to"),
                                             h.Get<double>("mean_gbps"),
                                             h.Get<double>("injection_gbps") });
                  });
    }
    WindowFrom(r, s.windowStartS, s.windowEndS);
    s.windowIsWholeRun
        = r.Has("measurement_window_whole_run") && r.Get<bool>("measurement_window_whole_run");
    s.simulatedTimeS = r.Get<double>("simulated_time_s");
    s.wallTimeS = r.Get<double>("wall_time_s");
    s.wallPerSimulatedS = r.Get<double>("wall_per_simulated_s");
    s.events = r.Get<uint64_t>("events");
    Reader packets = r.Object("packets");
    s.packetHops = packets.Get<uint64_t>("hops");
    s.torForwardedPackets = packets.Get<uint64_t>("tor_forwarded");
    s.scenario = r.Raw("scenario");
    return s;
}

RunSummary
ReadRunSummary(const std::string& path)
{
    const InputFile file = ReadInputFile(path);
    if (!file.problem.empty())
    {
        throw RunSummaryError(
            fmt::format("{}: cannot open the run summary: {}", path, file.problem));
    }
    return ParseRunSummary(file.text, path);
}

RunSummary
ParseRunSummary(const std::string& text, const std::string& source)
{
    json j;
    try
    {
        j = json::parse(text);
    }
    catch (const json::parse_error& e)
    {
        throw RunSummaryError(fmt::format("{}: invalid JSON: {}", source, e.what()));
    }
    return RunSummaryFromJson(j, source);
}

} // namespace flumen
