#!/usr/bin/env bash
# Checks the table definitions checked in beside the examples and in tests/exports/ (every
# option at once), written by the code (the `exports` test fails when they drift from it):
#   - every CloudFormation template (JSON and YAML) passes `cfn-lint` with no error or warning,
#     and its YAML and JSON forms are the same document;
#   - every Terraform file parses with `python-hcl2` and holds, for the definition's
#     `aws_dynamodb_table`, every key attribute, each index, TTL, stream and PITR as the
#     CloudFormation template of the same table has them (encryption at rest too: the
#     all-options template carries a customer managed KMS key; warm and maximum on-demand
#     throughput, the recovery period, Contributor Insights and the resource policy: the
#     settings template carries them; table class, tags, and a global table's replicas and witness:
#     the regions and strong templates carry them, as `AWS::DynamoDB::GlobalTable`), and the same IAM
#     policies;
#   - every IAM policy document exported (`policy-*.json`) passes the IAM linter `parliament`
#     with no finding.
# Installs the tools with pip into a venv under target/ (VENV to override), once.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${VENV:-target/export-check-venv}"
if [ ! -x "$VENV/bin/cfn-lint" ] || [ ! -x "$VENV/bin/parliament" ] || ! "$VENV/bin/python" -c "import hcl2" 2>/dev/null; then
  echo "== installing cfn-lint, python-hcl2 and parliament into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "cfn-lint>=1,<2" "python-hcl2>=4,<8" "parliament>=1.6,<2"
fi

files=(examples/*/table.cfn.json examples/*/table.cfn.yaml tests/exports/table.cfn.json tests/exports/table.cfn.yaml
  tests/exports/*/table.cfn.json tests/exports/*/table.cfn.yaml)
echo "== cfn-lint ${files[*]}"
"$VENV/bin/cfn-lint" --format parseable -- "${files[@]}"

policies=(tests/exports/*/policy-*.json)
echo "== parliament ${policies[*]}"
for policy in "${policies[@]}"; do
  # parliament reads stdin when it is not a terminal: the document goes as --string. It exits
  # with 1 on findings; any output is a finding.
  status=0
  findings="$("$VENV/bin/parliament" --string "$(cat "$policy")" --minimum_severity INFO </dev/null 2>&1)" || status=$?
  if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
    echo "$policy: parliament findings:" >&2
    echo "$findings" >&2
    exit 1
  fi
  echo "$policy: ok"
done

echo "== python-hcl2 examples/*/table.tf tests/exports/table.tf tests/exports/*/table.tf"
"$VENV/bin/python" - examples/*/table.tf tests/exports/table.tf tests/exports/*/table.tf <<'PY'
import json, pathlib, sys
import hcl2, yaml

def heredoc(text):
    """A JSON document written as an HCL heredoc (or string), `$${` unescaped."""
    text = text.strip()
    text = text[text.index("<<-EOT") + 6:text.rindex("EOT")] if "<<-EOT" in text else text
    return json.loads(text.replace("$${", "${"))

def on_demand(block):
    return [(x["max_read_request_units"], x["max_write_request_units"]) for x in block.get("on_demand_throughput", [])]

def on_demand_cfn(props):
    o = props.get("OnDemandThroughput")
    return [(o["MaxReadRequestUnits"], o["MaxWriteRequestUnits"])] if o else []

failures = []
def check(cond, what):
    if not cond:
        failures.append(what)

for tf in map(pathlib.Path, sys.argv[1:]):
    with tf.open() as f:
        doc = hcl2.load(f)
    cfn = json.loads((tf.parent / "table.cfn.json").read_text())
    # YAML and JSON are one template.
    cfn_yaml = yaml.safe_load((tf.parent / "table.cfn.yaml").read_text())
    check(cfn_yaml == cfn, f"{tf.parent}: table.cfn.yaml and table.cfn.json differ")
    (resource,) = [r for r in cfn["Resources"].values() if r["Type"] in ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")]
    props = dict(resource["Properties"])
    replicas = props.get("Replicas", [])
    if resource["Type"] == "AWS::DynamoDB::GlobalTable":
        # The Terraform table is the first replica: its settings are that replica's, and the
        # others are `replica` blocks.
        first = replicas[0]
        for key in ("PointInTimeRecoverySpecification", "DeletionProtectionEnabled", "ContributorInsightsSpecification", "ResourcePolicy", "TableClass", "Tags"):
            if key in first:
                props[key] = first[key]
        if "KMSMasterKeyId" in first.get("SSESpecification", {}):
            props["SSESpecification"] = {**props["SSESpecification"], "KMSMasterKeyId": first["SSESpecification"]["KMSMasterKeyId"]}
        writes = props.get("WriteOnDemandThroughputSettings", {}).get("MaxWriteRequestUnits")
        reads = first.get("ReadOnDemandThroughputSettings", {}).get("MaxReadRequestUnits")
        if writes is not None and reads is not None:
            props["OnDemandThroughput"] = {"MaxReadRequestUnits": reads, "MaxWriteRequestUnits": writes}
        index_reads = {i["IndexName"]: i["ReadOnDemandThroughputSettings"]["MaxReadRequestUnits"] for i in first.get("GlobalSecondaryIndexes", [])}
        props["GlobalSecondaryIndexes"] = [
            {**i, "OnDemandThroughput": {"MaxReadRequestUnits": index_reads[i["IndexName"]], "MaxWriteRequestUnits": i["WriteOnDemandThroughputSettings"]["MaxWriteRequestUnits"]}}
            if "WriteOnDemandThroughputSettings" in i else i
            for i in props.get("GlobalSecondaryIndexes", [])
        ]
        check(props.get("StreamSpecification", {}).get("StreamViewType") == "NEW_AND_OLD_IMAGES", f"{tf}: a global table without its stream")
    # The same IAM policies, with the same documents (references of the table aside).
    cfn_policies = {r["Properties"]["ManagedPolicyName"]: r["Properties"]["PolicyDocument"] for r in cfn["Resources"].values() if r["Type"] == "AWS::IAM::ManagedPolicy"}
    tf_policies = {}
    for r in doc.get("resource", []):
        for p in r.get("aws_iam_policy", {}).values():
            text = p["policy"].strip()
            text = text[text.index("<<-EOT") + 6:text.rindex("EOT")] if "<<-EOT" in text else text
            tf_policies[p["name"].strip('"')] = json.loads(text.replace("$${", "${"))
    check(sorted(tf_policies) == sorted(cfn_policies), f"{tf}: policies {sorted(tf_policies)} != {sorted(cfn_policies)}")
    for name, cdoc in cfn_policies.items():
        tdoc = tf_policies.get(name)
        if tdoc is None:
            continue
        for key in ("Action", "Condition", "Effect", "Sid"):
            check([s.get(key) for s in tdoc["Statement"]] == [s.get(key) for s in cdoc["Statement"]], f"{tf}: policy {name} {key}")
        check([len(s["Resource"]) for s in tdoc["Statement"]] == [len(s["Resource"]) for s in cdoc["Statement"]], f"{tf}: policy {name} resources")
    tables = [t for r in doc.get("resource", []) for t in r.get("aws_dynamodb_table", {}).values()]
    check(len(tables) == 1, f"{tf}: one aws_dynamodb_table, found {len(tables)}")
    if len(tables) != 1:
        continue
    t = tables[0]
    unq = lambda v: v.strip('"') if isinstance(v, str) else v
    check(unq(t["name"]) == props["TableName"], f"{tf}: name")
    check(unq(t["billing_mode"]) == props["BillingMode"], f"{tf}: billing_mode")
    keys = {k["KeyType"]: k["AttributeName"] for k in props["KeySchema"]}
    check(unq(t["hash_key"]) == keys["HASH"], f"{tf}: hash_key")
    check(unq(t.get("range_key")) == keys.get("RANGE"), f"{tf}: range_key")
    attrs = sorted((unq(a["name"]), unq(a["type"])) for a in t.get("attribute", []))
    want = sorted((a["AttributeName"], a["AttributeType"]) for a in props["AttributeDefinitions"])
    check(attrs == want, f"{tf}: attributes {attrs} != {want}")
    for block, prop in [("global_secondary_index", "GlobalSecondaryIndexes"), ("local_secondary_index", "LocalSecondaryIndexes")]:
        got = {unq(i["name"]): i for i in t.get(block, [])}
        for i in props.get(prop, []):
            name = i["IndexName"]
            check(name in got, f"{tf}: {block} {name} missing")
            if name not in got:
                continue
            g = got[name]
            ks = {k["KeyType"]: k["AttributeName"] for k in i["KeySchema"]}
            if "key_schema" in g:
                # A multi-attribute index: `key_schema` blocks, every attribute in the template's order.
                got_keys = [(unq(k["attribute_name"]), unq(k["key_type"])) for k in g["key_schema"]]
                want_keys = [(k["AttributeName"], k["KeyType"]) for k in i["KeySchema"]]
                check(got_keys == want_keys, f"{tf}: {name} key_schema {got_keys} != {want_keys}")
                check("hash_key" not in g and "range_key" not in g, f"{tf}: {name} key_schema with hash_key/range_key")
            else:
                if block == "global_secondary_index":
                    check(unq(g["hash_key"]) == ks["HASH"], f"{tf}: {name} hash_key")
                check(unq(g.get("range_key")) == ks.get("RANGE"), f"{tf}: {name} range_key")
            check(unq(g["projection_type"]) == i["Projection"]["ProjectionType"], f"{tf}: {name} projection_type")
            check([unq(a) for a in g.get("non_key_attributes", [])] == i["Projection"].get("NonKeyAttributes", []), f"{tf}: {name} non_key_attributes")
            check(on_demand(g) == on_demand_cfn(i), f"{tf}: {name} on_demand_throughput")
        check(len(got) == len(props.get(prop, [])), f"{tf}: {block} count")
    ttl = props.get("TimeToLiveSpecification")
    got_ttl = t.get("ttl", [])
    check(([unq(x["attribute_name"]) for x in got_ttl]) == ([ttl["AttributeName"]] if ttl else []), f"{tf}: ttl")
    stream = props.get("StreamSpecification")
    check(t["stream_enabled"] == (stream is not None), f"{tf}: stream_enabled")
    check(unq(t.get("stream_view_type")) == (stream["StreamViewType"] if stream else None), f"{tf}: stream_view_type")
    pitr = props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"]
    check([x["enabled"] for x in t.get("point_in_time_recovery", [])] == [pitr], f"{tf}: point_in_time_recovery")
    days = props["PointInTimeRecoverySpecification"].get("RecoveryPeriodInDays")
    check([x.get("recovery_period_in_days") for x in t.get("point_in_time_recovery", [])] == [days], f"{tf}: recovery_period_in_days")
    warm = props.get("WarmThroughput")
    got_warm = [(x["read_units_per_second"], x["write_units_per_second"]) for x in t.get("warm_throughput", [])]
    check(got_warm == ([(warm["ReadUnitsPerSecond"], warm["WriteUnitsPerSecond"])] if warm else []), f"{tf}: warm_throughput")
    check(on_demand(t) == on_demand_cfn(props), f"{tf}: on_demand_throughput")
    insights = props.get("ContributorInsightsSpecification")
    got_insights = [r for r in doc.get("resource", []) for r in r.get("aws_dynamodb_contributor_insights", {}).values()]
    check(len(got_insights) == (1 if insights else 0), f"{tf}: aws_dynamodb_contributor_insights")
    policy = props.get("ResourcePolicy")
    got_policy = [heredoc(r["policy"]) for r in doc.get("resource", []) for r in r.get("aws_dynamodb_resource_policy", {}).values()]
    check(got_policy == ([policy["PolicyDocument"]] if policy else []), f"{tf}: aws_dynamodb_resource_policy")
    check(t["deletion_protection_enabled"] == props["DeletionProtectionEnabled"], f"{tf}: deletion_protection_enabled")
    # Encryption at rest: no block and no SSESpecification for the AWS owned key; a KMS key
    # (kms_key_arn: a customer managed one) as the other has it.
    sse = props.get("SSESpecification")
    got_sse = t.get("server_side_encryption", [])
    check([x["enabled"] for x in got_sse] == ([sse["SSEEnabled"]] if sse else []), f"{tf}: server_side_encryption")
    check([unq(x.get("kms_key_arn")) for x in got_sse] == ([sse.get("KMSMasterKeyId")] if sse else []), f"{tf}: kms_key_arn")
    check(sse is None or sse.get("SSEType") == "KMS", f"{tf}: SSEType")
    check(unq(t.get("table_class")) == props.get("TableClass"), f"{tf}: table_class")
    got_tags = {unq(k): unq(v) for k, v in t.get("tags", {}).items()}
    check(got_tags == {x["Key"]: x["Value"] for x in props.get("Tags", [])}, f"{tf}: tags {got_tags}")
    # The replicas after the first, as `replica` blocks; the witness.
    strong = props.get("MultiRegionConsistency") == "STRONG"
    got_replicas = [(unq(r["region_name"]), unq(r.get("consistency_mode")), unq(r.get("kms_key_arn")), r.get("point_in_time_recovery"), r.get("deletion_protection_enabled"), r.get("propagate_tags")) for r in t.get("replica", [])]
    want_replicas = [(r["Region"], "STRONG" if strong else None, r.get("SSESpecification", {}).get("KMSMasterKeyId"), r["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"], r["DeletionProtectionEnabled"], True if r.get("Tags") else None) for r in replicas[1:]]
    check(got_replicas == want_replicas, f"{tf}: replicas {got_replicas} != {want_replicas}")
    got_witness = [unq(w["region_name"]) for w in t.get("global_table_witness", [])]
    check(got_witness == [w["Region"] for w in props.get("GlobalTableWitnesses", [])], f"{tf}: global_table_witness")
    print(f"{tf}: {len(attrs)} attributes, {len(t.get('global_secondary_index', []))} GSI, {len(t.get('local_secondary_index', []))} LSI, ttl={bool(got_ttl)}, stream={t['stream_enabled']}, pitr={pitr}, sse={bool(got_sse)}, replicas={len(got_replicas)}: ok")

if failures:
    print("Terraform export check FAILED:", *failures, sep="\n  ", file=sys.stderr)
    sys.exit(1)
PY
echo "== exports ok"
