// The monitoring mixin of mintlify_exporter: alerts.yml, rules.yml and
// mintlify.json, read as they are, so the mixin and the files Prometheus
// and Grafana load never differ. It sits beside them because
// jsonnet-bundler installs a directory, and an import cannot leave it.
{
  _config+:: {
    // The receiver's scrape job, for its `up`; every other expression
    // selects by metric name.
    receiverSelector: 'job="mintlify_receiver"',
  },

  local fileSelector = 'job="mintlify_receiver"',
  local withSelector(groups, selector) = [
    g {
      rules: [
        r + (if std.objectHas(r, 'expr') then { expr: std.strReplace(r.expr, fileSelector, selector) } else {})
        for r in g.rules
      ],
    }
    for g in groups
  ],

  prometheusAlerts+:: {
    groups+: withSelector(std.parseYaml(importstr 'alerts.yml').groups, $._config.receiverSelector),
  },

  prometheusRules+:: {
    groups+: std.parseYaml(importstr 'rules.yml').groups,
  },

  grafanaDashboards+:: {
    'mintlify.json': import 'mintlify.json',
  },
}
