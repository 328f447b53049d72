// The groups of scenario keys declared in files of their own: the topology's (topology-keys.cc)
// and the transports' (transport-keys.cc). scenario-keys.cc puts them into the table in
// documentation order. Not a public API.
#ifndef FLUMEN_KEY_GROUPS_H
#define FLUMEN_KEY_GROUPS_H

#include "scenario-keys.h"

#include <vector>

namespace flumen::detail
{

/** topology.*: hosts, links, the leaf-spine fabric, the host and switch queues, loss, PFC. */
void AddTopologyKeys(std::vector<KeySpec>& k);
/** job.rdma.* and dcqcn.*: the RoCE transport and its DCQCN rate control. */
void AddRdmaKeys(std::vector<KeySpec>& k);
/** tcp.*: every host's TCP (ns-3's sockets, with Linux's defaults where ns-3's differ). */
void AddTcpKeys(std::vector<KeySpec>& k);

} // namespace flumen::detail

#endif
