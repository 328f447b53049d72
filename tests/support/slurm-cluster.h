// A real one-node SLURM cluster for the integration tests (tests/batch/slurm-cluster.sh:
// Debian's slurm-wlm and munge, its own key, ports and state in a temporary folder).
#ifndef FLUMEN_TEST_SLURM_CLUSTER_H
#define FLUMEN_TEST_SLURM_CLUSTER_H

#include "test-support.h"

#include <string>

namespace flumen::test
{

/** A free TCP port on the loopback interface (-1 when none can be had). */
int FreePort();

/**
 * Starts the cluster and points SLURM_CONF at it for the lifetime of this object; stops its
 * daemons on destruction. Where it cannot start, Up() is false and Why() says why: the test is
 * then skipped with that reason.
 */
class OneNodeCluster
{
  public:
    OneNodeCluster();
    ~OneNodeCluster();
    OneNodeCluster(const OneNodeCluster&) = delete;
    OneNodeCluster& operator=(const OneNodeCluster&) = delete;
    bool Up() const { return !m_conf.empty(); }
    const std::string& Why() const { return m_why; }

  private:
    TempDir m_dir;
    std::string m_script;
    std::string m_conf;
    std::string m_why;
};

} // namespace flumen::test

#endif
