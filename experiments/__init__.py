"""One-off measurements that decided something; each names its decision and the doc that keeps it
(README.md lists them)."""
