#pragma once
// A topology.conf shared by the topology parsing and placement tests.

namespace nvlsim::test {

// As NVIDIA topograph writes it: racks as blocks, a degraded rack of 14 nodes, an empty placeholder
// keeping aggregates aligned.
inline constexpr const char* kConf = R"(# NVL72 cliques
BlockName=b1 Nodes=gb[001-018]
BlockName=b2 Nodes=gb[019-036]

BlockName=b3 Nodes=gb[037-050]   # two trays out
BlockName=b4
BlockSizes=18,36,72
)";

}  // namespace nvlsim::test
