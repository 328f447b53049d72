#include "slurm-cluster.h"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <cstdlib>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace flumen::test
{

int
FreePort()
{
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0
        && ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        ::close(s);
    return port;
}

OneNodeCluster::OneNodeCluster()
{
    m_script = std::string(FLUMEN_SOURCE_DIR) + "/tests/batch/slurm-cluster.sh";
    auto r = RunCommand(
        fmt::format("{} start {} {} {}", m_script, m_dir.Path(), FreePort(), FreePort()));
    if (r.exitCode != 0)
    {
        m_why = r.output;
        return;
    }
    m_conf = Lines(r.output).back();
    ::setenv("SLURM_CONF", m_conf.c_str(), 1);
}

OneNodeCluster::~OneNodeCluster()
{
    RunCommand(m_script + " stop " + m_dir.Path());
}

} // namespace flumen::test
