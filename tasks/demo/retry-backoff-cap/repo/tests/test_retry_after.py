from retrykit.retry_after import header, parse_retry_after

NOW = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC


def test_parse_delta_seconds():
    assert parse_retry_after("120", NOW) == 120.0
    assert parse_retry_after(" 0 ", NOW) == 0.0


def test_parse_http_date():
    assert parse_retry_after("Tue, 14 Nov 2023 22:14:20 GMT", NOW) == 60.0
    assert parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", NOW) == 0.0


def test_unusable_values_and_header_lookup():
    assert parse_retry_after(None, NOW) is None
    assert parse_retry_after("-5", NOW) is None
    assert parse_retry_after("soon", NOW) is None
    assert header({"retry-after": "5"}, "Retry-After") == "5"
