// Bad input as a user meets it, through the commands themselves: every case must exit 2 with a
// message naming the file (or option) and the key or line at fault, and leave no output. The
// test prints how many cases of each kind were tried.
#include "run-outputs.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

struct BadInput
{
    std::string kind;    //!< the input kind, for the tally
    std::string program; //!< run, sweep, validate, calibrate, tcp-summary, bench
    std::string file;    //!< written to the test folder as bad.json (or bad.txt), "" for none
    std::string args;    //!< {file}, {dir} and {out} are replaced
    std::vector<std::string> named; //!< what the message must name (file, key, line, option)
};

const std::string kQuickstart = FLUMEN_SOURCE_DIR "/scenarios/quickstart.json";
const std::string kTcpHeader = FormatTcpCsv({});

std::vector<BadInput>
Cases()
{
    const std::string run = "{file} --out {out}";
    const std::string sweep = "{file} --out {out}";
    std::vector<BadInput> c = {
        // Scenario files.
        { "scenario file",
          "run",
          "{\"job\": {\"model\": \"resnet50\"",
          run,
          { "bad.json:1", "JSON" } },
        { "scenario file", "run", "", run, { "bad.json", "invalid JSON" } },
        { "scenario file", "run", "[1, 2]", run, { "bad.json", "JSON object" } },
        { "scenario file",
          "run",
          "{\"job\": {\"modle\": \"resnet50\"}}",
          run,
          { "bad.json", "job.modle" } },
        { "scenario file",
          "run",
          "{\"job\": {\"iterations\": \"three\"}}",
          run,
          { "bad.json", "job.iterations", "integer" } },
        { "scenario file",
          "run",
          "{\"job\": {\"iterations\": -2}}",
          run,
          { "bad.json", "job.iterations", "between" } },
        { "scenario file",
          "run",
          "{\"job\": {\"iterations\": 2.5}}",
          run,
          { "bad.json", "job.iterations" } },
        { "scenario file",
          "run",
          "{\"job\": {\"model\": \"resnet51\"}}",
          run,
          { "bad.json", "job.model", "resnet51" } },
        { "scenario file",
          "run",
          "{\"cross_traffic\": {\"load_gbps\": 1e400}}",
          run,
          { "bad.json", "cross_traffic.load_gbps" } },
        { "scenario file",
          "run",
          "{\"cross_traffic\": {\"type\": \"websearch\", \"load_gbps\": 60}}",
          run,
          { "bad.json", "cross_traffic.load_gbps" } },
        { "scenario file",
          "run",
          "{\"cross_traffic\": {\"type\": \"tsunami\"}}",
          run,
          { "bad.json", "cross_traffic.type" } },
        { "scenario file",
          "run",
          "{\"job\": {\"transport\": \"rdma\"}, \"topology\": {\"link_rate_gbps\": -1}}",
          run,
          { "bad.json", "topology.link_rate_gbps" } },
        { "scenario file",
          "run",
          "{\"models\": {\"m\": {\"parameters\": 0}}, \"job\": {\"model\": \"m\"}}",
          run,
          { "bad.json", "models.m" } },
        { "scenario file", "run", "{\"job\": 5}", run, { "bad.json", "job" } },
        { "scenario file", "run", "{\"seed\": 18446744073709551616}", run, { "bad.json", "seed" } },
        { "scenario file",
          "run",
          "{\"job\": {\"model\": \"m\"}, \"models\": {\"m\": {\"layers_file\": "
          "\"nowhere.csv\", \"compute_s\": 0.1}}}",
          run,
          { "bad.json", "models.m.layers_file", "nowhere.csv", "cannot open" } },
        { "scenario file",
          "run",
          "{\"job\": {\"model\": \"m\", \"batch_size\": 32}, \"models\": {\"m\": "
          "{\"parameters\": 1000, \"compute_s\": 0.1}}}",
          run,
          { "bad.json", "job.batch_size", "models.m.batch_size" } },
        { "scenario file",
          "run",
          "{\"topology\": {\"loss\": {\"percent\": 1, \"hosts\": \"S0,T1\"}}}",
          run,
          { "bad.json", "topology.loss.hosts", "T1" } },
        { "scenario file",
          "run",
          "{\"topology\": {\"loss\": {\"percent\": 1}}, \"simulation\": {\"engine\": "
          "\"flow\"}}",
          run,
          { "bad.json", "topology.loss.percent", "flow engine" } },
        { "scenario file",
          "run",
          "{\"topology\": {\"hosts\": 6}, \"jobs\": [{\"name\": \"a\", \"hosts\": "
          "\"S0,S1\"}, {\"name\": \"b\", \"hosts\": \"S1,S2\"}]}",
          run,
          { "bad.json", "jobs[1].hosts", "S1" } },
        { "scenario file",
          "run",
          "{\"jobs\": [{\"name\": \"a\", \"hosts\": \"S0,S7\"}]}",
          run,
          { "bad.json", "jobs[0].hosts", "S7" } },
        { "scenario file",
          "run",
          "{\"topology\": {\"hosts\": 8}, \"jobs\": [{\"name\": \"a\", \"hosts\": "
          "\"S0,S1\"}, {\"name\": \"a\", \"hosts\": \"S2,S3\"}]}",
          run,
          { "bad.json", "jobs[1].name", "\"a\"" } },
        { "scenario file",
          "run",
          "{\"topology\": {\"hosts\": 6, \"leaves\": 4}}",
          run,
          { "bad.json", "topology.leaves", "divisor" } },
        { "scenario file",
          "run",
          "{\"cross_traffic\": {\"type\": \"iperf\", \"load_gbps\": 5, \"destination\": "
          "\"S2\"}}",
          run,
          { "bad.json", "cross_traffic.destination", "apart" } },
        { "scenario file",
          "run",
          "{\"job\": {\"collective\": \"parameter_server\", \"ps_servers\": 9}}",
          run,
          { "bad.json", "job.ps_servers", "at most" } },
        { "scenario file",
          "run",
          "{\"job\": {\"collective\": \"allgather\"}}",
          run,
          { "bad.json", "job.collective", "allgather" } },
        { "scenario file",
          "run",
          "",
          "{dir}/missing.json --out {out}",
          { "missing.json", "cannot open" } },
        // --set overrides and options.
        { "--set and options",
          "run",
          "",
          kQuickstart + " --set cross_traffic.load_gbps=1e309 --out {out}",
          { "--set", "cross_traffic.load_gbps" } },
        { "--set and options",
          "run",
          "",
          kQuickstart + " --set nokey --out {out}",
          { "--set", "key=value" } },
        { "--set and options",
          "run",
          "",
          kQuickstart + " --set job.warp=1 --out {out}",
          { "--set", "job.warp" } },
        { "--set and options",
          "run",
          "",
          kQuickstart + " --set job.iterations=many --out {out}",
          { "job.iterations", "given by --set job.iterations=many" } },
        { "--set and options", "run", "", kQuickstart + " --bogus --out {out}", { "--bogus" } },
        { "--set and options", "run", "", kQuickstart + " --out", { "--out" } },
        { "--set and options",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.iterations\": [3]}, \"seeds\": [1]}",
          "{file} --out {out} --jobs 0",
          { "--jobs" } },
        { "--set and options",
          "validate",
          "",
          test::kManifests + "iperf-rdma-configA.json --out {out} --max-sim-s -1",
          { "--max-sim-s" } },
        { "--set and options",
          "validate",
          "",
          test::kManifests + "iperf-rdma-configA.json --out {out} --models nosuch",
          { "nosuch" } },
        { "--set and options",
          "validate",
          "",
          test::kManifests
              + "iperf-rdma-configA.json --out {out} --engine flow"
                " --compare-engines {dir}/nowhere",
          { "--compare-engines", "nowhere", "not a folder" } },
        // Sweep files.
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.iterations\": [1e400]}, \"seeds\": [1]}",
          sweep,
          { "bad.json", "job.iterations" } },
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.warp\": [1]}, \"seeds\": [1]}",
          sweep,
          { "bad.json", "job.warp" } },
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.iterations\": [3]}, \"seeds\": []}",
          sweep,
          { "bad.json", "seeds" } },
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.iterations\": 3}, \"seeds\": [1]}",
          sweep,
          { "bad.json", "grid.job.iterations" } },
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {\"job.iterations\": [0]}, \"seeds\": [1]}",
          sweep,
          { "bad.json", "job.iterations=0" } },
        { "sweep file",
          "sweep",
          "{\"base_file\": \"nothere.json\", \"grid\": {}, \"seeds\": [1]}",
          sweep,
          { "nothere.json" } },
        { "sweep file",
          "sweep",
          "{\"base_file\": \"\", \"grid\": {}, \"seeds\": [1]}",
          sweep,
          { "bad.json", "base_file", "path of a scenario file" } },
        { "sweep file",
          "sweep",
          "{\"base\": {}, \"grid\": {}, \"seeds\": [1], \"extra\": 1}",
          sweep,
          { "bad.json", "extra" } },
        { "sweep file", "sweep", "{\"base\": {}, \"grid\": {", sweep, { "bad.json", "JSON" } },
        // Series manifests.
        { "series manifest",
          "validate",
          "{\"name\": \"x\"}",
          "{file} --out {out}",
          { "bad.json", "folder" } },
        { "series manifest",
          "validate",
          "{\"name\": \"x\", \"folder\": \"nowhere\", \"models\": []}",
          "{file} --out {out}",
          { "bad.json" } },
        { "series manifest", "validate", "not json", "{file} --out {out}", { "bad.json" } },
        { "series manifest",
          "calibrate",
          "{\"name\": \"x\"}",
          "{file} --out {out}/cal.json",
          { "bad.json" } },
        // Calibration files.
        { "calibration file",
          "run",
          "{\"job\": {\"model\": \"resnet50\"",
          kQuickstart + " --calibration {file} --out {out}",
          { "bad.json" } },
        { "calibration file",
          "run",
          "{\"models\": 3}",
          kQuickstart + " --calibration {file} --out {out}",
          { "bad.json", "models" } },
        { "calibration file",
          "run",
          "[]",
          kQuickstart + " --calibration {file} --out {out}",
          { "bad.json" } },
        // Load files and flow-size CDFs (replayed and web-search cross traffic).
        { "load file",
          "run",
          "",
          "{dir}/replay.json --out {out}",
          { "cross_traffic.file", "bad.txt:3", "size_bytes" } },
        { "flow-size CDF",
          "run",
          "",
          "{dir}/cdf.json --out {out}",
          { "cross_traffic.size_cdf", "bad.txt:2" } },
        // A folder where a file was expected (libstdc++'s streams would throw, naming nothing).
        { "a folder for a file",
          "run",
          "",
          "{dir} --out {out}",
          { "scenario file", "is a folder" } },
        { "a folder for a file",
          "run",
          "",
          kQuickstart + " --calibration {dir} --out {out}",
          { "calibration file", "is a folder" } },
        { "a folder for a file",
          "sweep",
          "",
          "{dir} --out {out}",
          { "sweep file", "is a folder" } },
        { "a folder for a file",
          "validate",
          "",
          "{dir} --out {out}",
          { "manifest", "is a folder" } },
        { "a folder for a file",
          "calibrate",
          "",
          "{dir} --out {out}/cal.json",
          { "manifest", "is a folder" } },
        { "a folder for a file",
          "run",
          "",
          kQuickstart
              + " --set cross_traffic.type=replay --set cross_traffic.file={dir} --out {out}",
          { "cross_traffic.file", "is a folder" } },
        { "a folder for a file",
          "run",
          "",
          kQuickstart
              + " --set cross_traffic.type=websearch --set cross_traffic.size_cdf={dir} --out "
                "{out}",
          { "cross_traffic.size_cdf", "is a folder" } },
        { "a folder for a file",
          "run",
          "",
          kQuickstart
              + " --set job.model=mine --set models.mine.compute_s=0.1"
                " --set models.mine.layers_file={dir} --out {out}",
          { "models.mine.layers_file", "is a folder" } },
        // An output file's path that is a folder, refused before the work (minutes of it).
        { "a folder for a file",
          "calibrate",
          "",
          test::kManifests + "iperf-rdma-configA.json --engine flow --out {dir}",
          { "--out", "output file", "a folder" } },
        { "a folder for a file", "bench", "", "--quick --out {dir}", { "--out", "a folder" } },
        // An output folder's path that is a file.
        { "a file for a folder",
          "validate",
          "{}",
          test::kManifests + "iperf-rdma-configA.json --engine flow --out {file}",
          { "--out", "bad.json is not a folder" } },
        { "a file for a folder",
          "sweep",
          "{\"base\": {}, \"grid\": {}, \"seeds\": [1]}",
          "{file} --out {file}",
          { "--out", "bad.json is not a folder" } },
        { "a file for a folder",
          "run",
          "{}",
          kQuickstart + " --out {file}",
          { "--out", "bad.json is not a folder" } },
        // tcp.csv files and tcp-summary's options.
        { "tcp.csv",
          "tcp-summary",
          "flow_id,start_s\n1,2\n",
          "{file}",
          { "bad.json:1", "header" } },
        { "tcp.csv",
          "tcp-summary",
          kTcpHeader + "1,0.5,abc,,,,10,,,0,0\n",
          "{file}",
          { "bad.json:2", "size_bytes" } },
        { "tcp.csv",
          "tcp-summary",
          kTcpHeader + "1,-0.5,100,,,,10,,,0,0\n",
          "{file}",
          { "bad.json:2", "start_s" } },
        { "tcp.csv",
          "tcp-summary",
          kTcpHeader + "1,0.5,100,,,10,,,0,0\n",
          "{file}",
          { "bad.json:2", "11" } },
        { "tcp.csv",
          "tcp-summary",
          kTcpHeader + "1,0.5,100,0.6,2000,,10,,,0,0\n",
          "{file}",
          { "bad.json:2", "slow_start_end_cause" } },
        { "tcp.csv",
          "tcp-summary",
          kTcpHeader + "1,0.5,100,0.6,2000,HyStart,10,,,0,0\n",
          "{file}",
          { "bad.json:2", "slow_start_end_cause", "HyStart" } },
        { "tcp.csv", "tcp-summary", "", "{dir}/nowhere", { "nowhere", "tcp.csv" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --sizes-mb 1,",
          { "--sizes-mb", "''" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --sizes-mb 0.0000001",
          { "--sizes-mb", "a byte" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --sizes-mb 3,1",
          { "--sizes-mb", "increasing" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --from-s soon",
          { "--from-s", "soon" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --segment-bytes 0",
          { "--segment-bytes" } },
        { "tcp-summary option",
          "tcp-summary",
          kTcpHeader,
          "{file} --everything",
          { "--everything" } },
    };
    return c;
}

} // namespace

TEST(BadInput, EveryKindExitsTwoNamingWhatIsWrongAndWritesNothing)
{
    std::map<std::string, int> tried;
    std::map<std::string, std::vector<std::string>> texts = {
        { "load file", { "3\n0 1000 1\n10 abc 2\n20 3000 1\n" } },
        { "flow-size CDF", { "1 1 0.5\n2 1 0.3\n" } },
    };
    for (const auto& c : Cases())
    {
        test::TempDir dir;
        std::string file = dir.Write("bad.json", c.file);
        if (texts.count(c.kind))
        {
            dir.Write("bad.txt", texts[c.kind][0]);
            dir.Write("replay.json",
                      "{\"cross_traffic\": {\"type\": \"replay\", \"file\": \"bad.txt\"},"
                      " \"job\": {\"iterations\": 2, \"warmup_iterations\": 1}}");
            dir.Write("cdf.json", "{\"cross_traffic\": {\"type\": \"websearch\", \"load_gbps\": 5,"
                                  " \"size_cdf\": \"bad.txt\"}}");
        }
        const std::string out = dir.Path() + "/out";
        std::string args = c.args;
        for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
                 { "{file}", file }, { "{dir}", dir.Path() }, { "{out}", out } })
        {
            for (size_t at; (at = args.find(from)) != std::string::npos;)
            {
                args.replace(at, from.size(), to);
            }
        }
        test::CommandResult r = c.program == "run"           ? test::RunFlumen(args)
                                : c.program == "sweep"       ? test::RunSweep(args)
                                : c.program == "validate"    ? test::RunValidate(args)
                                : c.program == "tcp-summary" ? test::RunTcpSummary(args)
                                : c.program == "bench"       ? test::RunBench(args)
                                                             : test::RunCalibrate(args);
        SCOPED_TRACE(c.kind + ": " + c.program + " " + args + "\n" + r.output);
        EXPECT_EQ(r.exitCode, 2);
        for (const auto& name : c.named)
        {
            EXPECT_NE(r.output.find(name), std::string::npos) << "does not name '" << name << "'";
        }
        EXPECT_FALSE(fs::exists(out)) << "left " << out;
        ++tried[c.kind];
    }
    std::string tally;
    int total = 0;
    for (const auto& [kind, n] : tried)
    {
        tally += " " + kind + " " + std::to_string(n) + ";";
        total += n;
    }
    std::cout << "[measure] bad inputs tried: " << total << " (" << tally.substr(1) << ")\n";
}
