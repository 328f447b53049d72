// FluidHost's routes: added, or made by its resolver the first time one is asked for and kept
// (so that a fabric of thousands of hosts holds the pairs that carry traffic, not all pairs).
#include "ns3/fluid-host.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(FluidHost, RoutesAreMadeWhenFirstAskedForAndKeptWhereTheyWere)
{
    Ptr<FluidHost> host = CreateObject<FluidHost>();
    host->SetAddress(Ipv4Address("10.0.0.1"));
    FluidHost::Route added;
    added.links = { 7 };
    host->AddRoute(Ipv4Address("10.0.0.9"), added);
    std::vector<Ipv4Address> asked;
    host->SetRouteResolver(Callback<FluidHost::Route, Ipv4Address>(
        [&asked](Ipv4Address to)
        {
            asked.push_back(to);
            FluidHost::Route r;
            r.links = { to.Get() & 0xff, 100 };
            r.delay = MicroSeconds(2);
            return r;
        }));
    EXPECT_EQ(host->GetRouteCount(), 1u);

    // An added route is not made again.
    EXPECT_EQ(host->GetRoute(Ipv4Address("10.0.0.9")).links, std::vector<uint32_t>{ 7 });
    EXPECT_TRUE(asked.empty());

    // A new destination: made once, then the same object.
    const FluidHost::Route& first = host->GetRoute(Ipv4Address("10.0.0.2"));
    EXPECT_EQ(first.links, (std::vector<uint32_t>{ 2, 100 }));
    EXPECT_EQ(first.delay, MicroSeconds(2));
    for (uint32_t i = 3; i < 50; ++i)
    {
        host->GetRoute(Ipv4Address(0x0a000000 + i)); // many more made after it
    }
    EXPECT_EQ(&host->GetRoute(Ipv4Address("10.0.0.2")), &first); // still where it was
    EXPECT_EQ(first.links, (std::vector<uint32_t>{ 2, 100 }));
    // Each destination asked for once: .2 and .3 to .49 but the added .9.
    EXPECT_EQ(asked.size(), 47u);
    EXPECT_EQ(host->GetRouteCount(), 48u);
    host->Dispose();
    Simulator::Destroy();
}
