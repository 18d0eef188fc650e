-- wrk script: POST the AdmissionReview body in $SHAPER_BENCH_BODY and print one JSON summary line.
local file = assert(io.open(os.getenv("SHAPER_BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format(
    'SHAPER_BENCH_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50Us":%d,"p99Us":%d,"p999Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, errors, summary.errors.status,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
