#include "scenario-placement.h"

#include "scenario-checks.h"

#include "ns3/star-topology-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace flumen
{

ns3::StarRoles
CrossTrafficRoles(const Scenario& s)
{
    ns3::StarTopologyConfig c;
    c.configuration = s.configuration;
    c.hosts = s.hosts;
    c.crossSource = s.crossSource;
    c.crossDestination = s.crossDestination;
    return ns3::StarTopologyHelper::Roles(c);
}

namespace detail
{

// Host names "S0,S3" of a key, as indices (each once, in the order given).
std::vector<uint32_t>
HostList(const Scenario& s, const std::string& key, const std::string& text)
{
    std::vector<uint32_t> out;
    std::stringstream hosts(text);
    for (std::string host; std::getline(hosts, host, ',');)
    {
        size_t used = 0;
        unsigned long index = 0;
        // At most 4 digits (hosts <= 4096): stoul never overflows.
        bool ok = host.size() >= 2 && host.size() <= 5 && host[0] == 'S'
                  && std::isdigit(static_cast<unsigned char>(host[1]));
        if (ok)
        {
            index = std::stoul(host.substr(1), &used);
            ok = used == host.size() - 1 && index < s.hosts;
        }
        if (!ok)
        {
            Fail(s.source, key,
                 fmt::format("expected host names S0..S{} separated by commas, got '{}'",
                             s.hosts - 1, host));
        }
        if (std::find(out.begin(), out.end(), index) == out.end())
        {
            out.push_back(static_cast<uint32_t>(index));
        }
    }
    return out;
}

// link.csv's port, named as summary.json names ports.
void
ResolveLinkPort(Scenario& s)
{
    const std::string& text = s.linkPortText;
    if (text.empty())
    {
        return;
    }
    if (s.linkBinUs <= 0)
    {
        Fail(s.source, "outputs.link_port",
             "names link.csv's port, which outputs.link_bin_us = 0 turns off: expected a bin "
             "width above 0 with it");
    }
    // The names the topology gives its ports (summary.json's).
    for (uint32_t host = 0; host < s.hosts; ++host)
    {
        for (const bool nic : { true, false })
        {
            if (text == ns3::StarTopologyHelper::PortName(host, nic))
            {
                s.linkPortHost = static_cast<int>(host);
                s.linkPortAtNic = nic;
                return;
            }
        }
    }
    Fail(s.source, "outputs.link_port",
         fmt::format("expected \"S<i> NIC egress\" or \"ToR port towards S<i>\" with i from 0 "
                     "to {} (topology.hosts = {}), got \"{}\"",
                     s.hosts - 1, s.hosts, text));
}

// The job's name (a column of iterations.csv) and hosts: job.hosts, else the
// configuration's; at least two.
void
ResolveJobNameAndHosts(Scenario& s)
{
    const bool plain = !s.jobName.empty() && s.jobName.size() <= 64
                       && std::all_of(s.jobName.begin(), s.jobName.end(),
                                      [](char c) {
                                          return std::isalnum(static_cast<unsigned char>(c))
                                                 || c == '-' || c == '_' || c == '.';
                                      });
    if (!plain)
    {
        Fail(s.source, "job.name",
             fmt::format("expected 1 to 64 letters, digits, '-', '_' or '.', got \"{}\"",
                         s.jobName));
    }
    s.jobHosts = s.jobHostsText.empty()
                     ? ns3::StarTopologyHelper::JobHosts(s.configuration, s.hosts)
                     : HostList(s, "job.hosts", s.jobHostsText);
    if (s.jobEnabled && s.jobHosts.size() < 2)
    {
        Fail(s.source, "job.hosts",
             fmt::format("expected at least 2 hosts (a collective needs two workers), got '{}'",
                         s.jobHostsText));
    }
}

// The hosts' receive rate in effect (at most the link rate); the leaf-spine fabric: hosts split
// evenly, one of uplink rate and oversubscription, no PFC (modelled at the star's ToR only);
// then the uplink rate and ratio in effect.
void
CheckFabric(Scenario& s)
{
    if (s.hostReceiveGbps > s.linkRateGbps)
    {
        Fail(s.source, "topology.host_receive_gbps",
             fmt::format("expected at most the link rate (topology.link_rate_gbps = {}), or 0 "
                         "for the link rate, got {}",
                         s.linkRateGbps, s.hostReceiveGbps));
    }
    if (s.hostReceiveGbps <= 0)
    {
        s.hostReceiveGbps = s.linkRateGbps;
    }
    if (s.hosts % s.leaves != 0)
    {
        Fail(s.source, "topology.leaves",
             fmt::format("expected a divisor of topology.hosts ({}): the hosts split evenly "
                         "over the leaves, got {}",
                         s.hosts, s.leaves));
    }
    if (s.leaves == 1)
    {
        return;
    }
    if (s.uplinkRateGbps > 0 && s.oversubscription != 1.0)
    {
        Fail(s.source, "topology.oversubscription",
             "expected 1 (the default) with topology.uplink_rate_gbps set: give one of them");
    }
    if (s.pfcEnabled)
    {
        Fail(s.source, "topology.pfc.enabled",
             "PFC is modelled at the star's ToR only: expected false with topology.leaves > 1");
    }
    const double hostsPerLeaf = s.hosts / s.leaves;
    if (s.uplinkRateGbps <= 0)
    {
        s.uplinkRateGbps = hostsPerLeaf * s.linkRateGbps / (s.spines * s.oversubscription);
    }
    s.oversubscription = hostsPerLeaf * s.linkRateGbps / (s.spines * s.uplinkRateGbps);
}

// The cross traffic's hosts: one host each, where given, and two distinct ones.
void
ResolveCrossTrafficHosts(Scenario& s)
{
    auto one = [&s](const std::string& key, const std::string& text)
    {
        if (text.empty())
        {
            return ns3::StarTopologyConfig::kConfigured;
        }
        const std::vector<uint32_t> hosts = HostList(s, key, text);
        if (hosts.size() != 1)
        {
            Fail(s.source, key, fmt::format("expected one host, got '{}'", text));
        }
        return hosts.front();
    };
    s.crossSource = one("cross_traffic.source", s.crossSourceText);
    s.crossDestination = one("cross_traffic.destination", s.crossDestinationText);
    const ns3::StarRoles roles = CrossTrafficRoles(s);
    if (roles.crossSource == roles.crossDestination)
    {
        Fail(s.source,
             s.crossDestinationText.empty() ? "cross_traffic.source" : "cross_traffic.destination",
             fmt::format("expected the cross traffic's source and destination apart, got S{} "
                         "for both",
                         roles.crossSource));
    }
}

} // namespace detail

} // namespace flumen
