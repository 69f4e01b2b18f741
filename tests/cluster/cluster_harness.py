"""Loads scripts/cluster (a script without a .py name) as a module, for the cluster tests."""
import importlib.machinery
import importlib.util
import os
import warnings

# The harness starts long-lived servers and forgets their Popen objects on purpose (it tracks
# them by pid in harness.json, as `scripts/cluster down` from another process must).
warnings.filterwarnings("ignore", category=ResourceWarning)

SOURCE_DIR = os.environ.get(
    "VERDICT_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def load():
    path = os.path.join(SOURCE_DIR, "scripts", "cluster")
    loader = importlib.machinery.SourceFileLoader("verdict_cluster_harness", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
