"""The rules the fleet fault tests judge their made-up runs by: one floor on memory.host_read's
bandwidth, which a node's `ok` records pass and its `failed` records fail, so a verdict shows
whether each node was judged at all."""


def host_read_floor_rules(name):
    return f"""schema: railgauge.rules/1
name: {name}
rules:
  - id: read-floor
    category: memory
    severity: fail
    select: {{key: "memory.host_read"}}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 1
"""
