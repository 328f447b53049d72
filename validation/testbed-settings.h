// How the testbed of the thesis was run, where its logs do not say: the job's workers in
// configurations A and B, and the iperf streams its operator chose for a load.
#ifndef FLUMEN_TESTBED_SETTINGS_H
#define FLUMEN_TESTBED_SETTINGS_H

#include <string>

namespace flumen
{

/** Workers of the job in configuration "A" or "B". */
int JobWorkers(const std::string& configuration);

/**
 * iperf streams (-P) for a load, as the testbed's operator chose them (1 to 10: as many as
 * reach the requested load beside the job's traffic).
 */
int IperfStreamsFor(double loadGbps);

} // namespace flumen

#endif
