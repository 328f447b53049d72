// Golden regression of an RDMA scenario: its iterations.csv, byte for byte, against the
// committed reference (tests/golden/). The quickstart's is checked in quickstart-test.cc,
// on the run that test makes anyway. A difference is either a bug or a deliberate model
// change; the latter is committed with FLUMEN_UPDATE_GOLDEN=1 (see MatchesGolden).
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

using namespace flumen;

TEST(Golden, RdmaIperfIterationsAreUnchanged)
{
    // Configuration A, RoCE with DCQCN beside 15 Gbps of iperf leaving S0's NIC: the NIC's
    // RDMA/TCP arbitration, pacing, CNPs and the jittered compute model all shape the rows.
    const std::string file = FLUMEN_SOURCE_DIR "/tests/golden/rdma-iperf.json";
    Scenario s = ResolveScenario(LoadScenarioFile(file), file);
    RunOutput out = RunScenario(s);
    ASSERT_EQ(out.rows.size(), s.iterations * 4u);
    EXPECT_TRUE(test::MatchesGolden("rdma-iperf.iterations.csv", FormatIterationsCsv(out.rows)));
}
