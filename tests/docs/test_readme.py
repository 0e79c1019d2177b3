"""The README's supported-operators table matches the registry."""

import pathlib

from etarm.supported_ops import BEGIN, END, replace_table, table


def test_supported_ops_table_is_current():
    readme = pathlib.Path("README.md").read_text()
    assert BEGIN in readme and END in readme
    assert replace_table(readme, table()) == readme, (
        "README.md's operator table is stale: run ./bazelw run //python/etarm:supported_ops -- --update"
    )
