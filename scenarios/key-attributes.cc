#include "key-attributes.h"

#include "scenario.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

// Nanoseconds, bits per second: the base of each unit, as the attribute holds it.
double
UnitScale(Unit unit)
{
    switch (unit)
    {
    case Unit::Microseconds:
        return 1e3;
    case Unit::Milliseconds:
        return 1e6;
    case Unit::Seconds:
        return 1e9;
    case Unit::Mbps:
        return 1e6;
    case Unit::Gbps:
        return 1e9;
    default:
        return 1;
    }
}

} // namespace

ns3::TypeId::AttributeInformation
AttributeInfo(const std::string& attribute)
{
    const auto sep = attribute.rfind("::");
    ns3::TypeId tid;
    ns3::TypeId::AttributeInformation info;
    if (sep == std::string::npos
        || !ns3::TypeId::LookupByNameFailSafe(attribute.substr(0, sep), &tid)
        || !tid.LookupAttributeByName(attribute.substr(sep + 2), &info))
    {
        throw std::logic_error("scenario key table: no ns-3 attribute " + attribute);
    }
    return info;
}

// The attribute's own default (as its TypeId declares it) in the key's unit and type.
json
AttributeDefault(const std::string& attribute, KeyType type, Unit unit)
{
    ns3::Ptr<const ns3::AttributeValue> v = AttributeInfo(attribute).originalInitialValue;
    double x = 0;
    if (auto t = ns3::DynamicCast<const ns3::TimeValue>(v))
        x = t->Get().GetNanoSeconds() / UnitScale(unit);
    else if (auto r = ns3::DynamicCast<const ns3::DataRateValue>(v))
        x = r->Get().GetBitRate() / UnitScale(unit);
    else if (auto u = ns3::DynamicCast<const ns3::UintegerValue>(v))
        return json(u->Get());
    else if (auto d = ns3::DynamicCast<const ns3::DoubleValue>(v))
        x = d->Get();
    else if (auto b = ns3::DynamicCast<const ns3::BooleanValue>(v))
        return json(b->Get());
    else
        throw std::logic_error("scenario key table: unsupported attribute type of " + attribute);
    return type == KeyType::Integer ? json(static_cast<uint64_t>(std::llround(x))) : json(x);
}

namespace
{

// The key's value as the attribute's type, converted from the key's unit.
ns3::Ptr<ns3::AttributeValue>
ToAttributeValue(const KeySpec& k, const json& v)
{
    ns3::Ptr<ns3::AttributeValue> value = AttributeInfo(k.attribute).originalInitialValue->Copy();
    if (auto t = ns3::DynamicCast<ns3::TimeValue>(value))
        t->Set(ns3::NanoSeconds(std::llround(v.get<double>() * UnitScale(k.unit))));
    else if (auto r = ns3::DynamicCast<ns3::DataRateValue>(value))
        r->Set(ns3::DataRate(
            static_cast<uint64_t>(std::llround(v.get<double>() * UnitScale(k.unit)))));
    else if (auto u = ns3::DynamicCast<ns3::UintegerValue>(value))
        u->Set(v.get<uint64_t>());
    else if (auto d = ns3::DynamicCast<ns3::DoubleValue>(value))
        d->Set(v.get<double>());
    else if (auto b = ns3::DynamicCast<ns3::BooleanValue>(value))
        b->Set(v.get<bool>());
    return value;
}

} // namespace

void
ApplyAttributeKeys(const json& resolved)
{
    for (const auto& k : ScenarioKeys())
    {
        if (!k.attribute.empty())
        {
            ns3::Config::SetDefault(k.attribute, *ToAttributeValue(k, ValueAt(resolved, k.path)));
        }
    }
}

} // namespace flumen
