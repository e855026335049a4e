"""The Python SDK's own rules, natively: how a host refusal arrives, pages, argument counts,
refusal codes and the native call path. `tests/tests/author.rs` runs these."""

import enum
import json
import math
import unittest
from types import SimpleNamespace

from camber_sdk import CapError, Output, Plugin, count_arg, page, store
from camber_sdk.testing import context, fake_store


class HostErr(Exception):
    """What the generated bindings raise for a failed import: the error in `value`."""

    def __init__(self, value):
        self.value = value


Code = enum.Enum("Code", "NOT_ALLOWED NOT_FOUND")


class StoreReads(unittest.TestCase):
    def test_a_host_refusal_arrives_as_a_caperror_with_its_code(self):
        host = store._Host.__new__(store._Host)
        host._err = HostErr

        def refused():
            raise HostErr(SimpleNamespace(code=Code.NOT_ALLOWED, message="facility 'x' is outside this call"))

        with self.assertRaises(CapError) as e:
            host._host(refused)
        self.assertEqual((e.exception.code, e.exception.message), ("not_allowed", "facility 'x' is outside this call"))

    def test_without_a_host_a_read_is_unavailable_and_progress_is_silent(self):
        with self.assertRaises(CapError) as e:
            store.points("hq")
        self.assertEqual(e.exception.code, "unavailable")
        store.progress(1, 2, "AHU-1")

    def test_the_fake_refuses_outside_its_allowlist_and_records_progress(self):
        with fake_store(["hq"], [("AHU-1", "ahu", "sat")]) as fake:
            self.assertEqual([p.equip for p in store.points("hq")], ["AHU-1"])
            store.progress(1, 2, "AHU-1")
            with self.assertRaises(CapError) as e:
                store.points("annex")
        self.assertEqual(e.exception.code, "not_allowed")
        self.assertEqual(fake.reports, [(1, 2, "AHU-1")])


class Pages(unittest.TestCase):
    def test_a_whole_list_has_no_notice_and_a_cut_one_has(self):
        self.assertEqual(page([1, 2, 3], "rows", 0, 3), ([1, 2, 3], None))
        rows, notice = page(list(range(30)), "rows", 25, 25, "sorted")
        self.assertEqual(rows, list(range(25, 30)))
        self.assertEqual((notice.offset, notice.limit, notice.total, notice.order), (25, 25, 30, "sorted"))
        rows, notice = page([1], "rows", 10**12, 5000)
        self.assertEqual((rows, notice.limit), ([], 1000))

    def test_counts_take_whole_non_negative_numbers_only(self):
        args = {"n": 7, "neg": -1, "flag": True, "nan": math.nan, "big": 1e30, "text": "3"}
        self.assertEqual([count_arg(args, k, 9) for k in ["n", "neg", "flag", "nan", "text", "missing"]], [7, 9, 9, 9, 9, 9])
        self.assertGreater(count_arg(args, "big", 0), 2**32)


class Refusals(unittest.TestCase):
    def test_a_code_outside_the_registry_is_a_defect_and_a_message_is_one_line(self):
        with self.assertRaises(ValueError):
            CapError("nope", "x")
        self.assertEqual(CapError.invalid("a\nb\x1b[2Jc").message, "a bc")

    def test_the_native_call_path_refuses_by_code(self):
        plugin = Plugin()
        plugin.capability("good", description="d")(lambda args, ctx: Output({"n": args["n"]}, "t", []))
        plugin.capability("bad", description="d")(lambda args, ctx: {"n": 1})
        self.assertEqual(plugin.call("good", json.dumps({"n": 2}), context([])).data, {"n": 2})
        for name, args, code in [("missing", "{}", "unknown_capability"), ("good", "{", "invalid_params"), ("bad", "{}", "internal")]:
            with self.assertRaises(CapError) as e:
                plugin.call(name, args, context([]))
            self.assertEqual(e.exception.code, code, name)
        with self.assertRaises(ValueError):
            plugin.capability("good", description="again")(lambda args, ctx: None)


if __name__ == "__main__":
    unittest.main()
