// Checks shared by the tcp.csv tests of both engines.
#ifndef FLUMEN_TCP_CSV_CHECKS_H
#define FLUMEN_TCP_CSV_CHECKS_H

#include "key-attributes.h"
#include "packet-network.h"
#include "run-outputs.h"
#include "run-scenario.h"
#include "scenario.h"
#include "test-support.h"

#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flumen::test
{

/** CUBIC's HyStart low window (ns-3's attribute) in bytes of this scenario's segments. */
inline double
HyStartLowWindowBytes(const Scenario& s)
{
    const auto low = ns3::DynamicCast<const ns3::UintegerValue>(
                         AttributeInfo("ns3::TcpCubic::HyStartLowWindow").initialValue)
                         ->Get();
    return double(low) * TcpMss(s);
}

/** tcp.csv's rows are flows.csv's flows, in the same order. */
inline void
ExpectRowsFollowFlows(const std::vector<TcpFlowRow>& tcp, const std::vector<FlowRow>& flows)
{
    ASSERT_EQ(tcp.size(), flows.size());
    for (size_t i = 0; i < tcp.size(); ++i)
    {
        SCOPED_TRACE("flow " + std::to_string(tcp[i].id));
        EXPECT_EQ(tcp[i].id, flows[i].id);
        EXPECT_EQ(tcp[i].startS, flows[i].startS);
        EXPECT_EQ(tcp[i].sizeBytes, flows[i].sizeBytes);
    }
}

/** Recording tcp.csv changes nothing: without it the same flows end at the same instants and
 * the same iterations at theirs. */
inline void
ExpectTheSameFlowsWithoutTcpCsv(nlohmann::json user, const RunOutput& traced)
{
    user["outputs"]["tcp_csv"] = false;
    const RunOutput untraced = RunScenario(Resolve(user));
    EXPECT_FALSE(untraced.tcpFlows.has_value());
    ASSERT_EQ(untraced.flows.size(), traced.flows.size());
    for (size_t i = 0; i < traced.flows.size(); ++i)
    {
        ASSERT_EQ(untraced.flows[i].endS, traced.flows[i].endS) << "flow " << i;
    }
    EXPECT_TRUE(untraced.rows == traced.rows);
}

} // namespace flumen::test

#endif
