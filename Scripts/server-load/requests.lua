-- wrk script: GET /location with mixed accuracies (the five levels and custom metres) and short
-- timeouts (100 ms to 2 s), chosen at random per request; or, with WRK_PATH set, that path for
-- every request (the no-engine baseline). Prints a JSON summary line at the end.
local accuracies = { "city", "neighborhood", "block", "house", "room", "50", "8" }
local timeouts = { "100ms", "250ms", "500ms", "1s", "2s" }

math.randomseed(42)

local fixed = os.getenv("WRK_PATH")

request = function()
    if fixed then return wrk.format("GET", fixed) end
    local accuracy = accuracies[math.random(#accuracies)]
    local timeout = timeouts[math.random(#timeouts)]
    return wrk.format("GET", "/location?accuracy=" .. accuracy .. "&timeout=" .. timeout)
end

done = function(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        '{"requests":%d,"duration_us":%d,"bytes":%d,"non_2xx":%d,"connect_errors":%d,"read_errors":%d,' ..
        '"write_errors":%d,"timeouts":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
        summary.requests, summary.duration, summary.bytes, errors.status, errors.connect, errors.read,
        errors.write, errors.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99),
        latency.max, latency.mean))
end
