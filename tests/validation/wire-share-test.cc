// The testbed's wire share (validation/wire-share.h): each payload counted in its own frames.
#include "test-support.h"
#include "wire-share.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace flumen;
using nlohmann::json;

TEST(WireShare, CountsEachPayloadInItsOwnFrames)
{
    // ResNet-50 over RoCE on configuration A's 4 workers: a worker's ring sends 2 x 3/4 of its
    // 25,557,032 4-byte gradients, 153,342,192 bytes per iteration.
    const double ringBits = 8 * 153342192.0;
    // Ethernet's framing: a TCP segment of 1,448 bytes (1,500 less IPv4, TCP and timestamps)
    // is 1,500 + 2 (PPP) + 36 = 1,538 on the wire; a RoCE packet of 1,024 is 1,024 + 20 (IPv4)
    // + 8 (UDP) + 16 (BTH, ICRC) + 2 + 36 = 1,106.
    const json framed
        = { { "topology", { { "configuration", "A" }, { "ethernet_framing", true } } },
            { "job", { { "transport", "rdma" } } } };
    const double expected = (10e9 * 1538 / 1448 + ringBits / 0.2 * 1106 / 1024) / 25e9;
    EXPECT_NEAR(TestbedWireShare(test::Resolve(framed), 10, 0.2), expected, 1e-12);
    // Bare links: 1,502 and 1,070.
    json bare = framed;
    bare["topology"]["ethernet_framing"] = false;
    EXPECT_NEAR(TestbedWireShare(test::Resolve(bare), 10, 0.2),
                (10e9 * 1502 / 1448 + ringBits / 0.2 * 1070 / 1024) / 25e9, 1e-12);
    // A TCP ring in B: 3 workers, 2 x 2/3 of the gradients, in TCP frames.
    const json tcp = { { "topology", { { "ethernet_framing", true } } } };
    EXPECT_NEAR(TestbedWireShare(test::Resolve(tcp), 5, 0.25),
                (5e9 + 8 * 4.0 / 3 * 4 * 25557032 / 0.25) * 1538 / 1448 / 25e9, 1e-12);
    // B's shared port at a declared receive rate: the share is of that rate (A's is S0's
    // NIC egress, which the receive rate does not touch).
    json received = tcp;
    received["topology"]["host_receive_gbps"] = 20;
    EXPECT_NEAR(TestbedWireShare(test::Resolve(received), 5, 0.25),
                TestbedWireShare(test::Resolve(tcp), 5, 0.25) * 25 / 20, 1e-12);
    json receivedA = framed;
    receivedA["topology"]["host_receive_gbps"] = 20;
    EXPECT_NEAR(TestbedWireShare(test::Resolve(receivedA), 10, 0.2), expected, 1e-12);
    // Without the testbed's mean there is nothing to say.
    EXPECT_TRUE(std::isnan(TestbedWireShare(test::Resolve(tcp), 5, std::nan(""))));
}
