import { describe, expect, it } from "vitest";
import { createDownloadMeter, describeDownload } from "./download-meter";

describe("the guest download's meter", () => {
  it("gives the speed over the last two seconds, not the whole download's average", () => {
    const meter = createDownloadMeter();
    meter.update(0, 10e6, 0);
    // 1 MB/s for 4 s, then 0.25 MB/s for 2 s.
    for (let t = 500; t <= 4_000; t += 500) meter.update(t * 1_000, 10e6, t);
    let reading = meter.update(4e6, 10e6, 4_000);
    expect(reading.bytesPerSecond).toBeCloseTo(1e6, -3);
    for (let t = 4_500; t <= 6_000; t += 500) reading = meter.update(4e6 + (t - 4_000) * 250, 10e6, t);
    expect(reading.bytesPerSecond).toBeCloseTo(0.25e6, -3);
    expect(reading).toMatchObject({ loaded: 4.5e6, total: 10e6 });
  });

  it("says no speed until its samples span 100 ms", () => {
    const meter = createDownloadMeter();
    meter.update(0, 0, 0);
    expect(meter.update(50_000, 0, 40).bytesPerSecond).toBe(0);
    expect(meter.update(100_000, 0, 100).bytesPerSecond).toBe(1e6);
  });

  it("describes bytes, total and speed in MB, leaving out what is not known yet", () => {
    expect(describeDownload({ loaded: 3.14e6, total: 6.49e6, bytesPerSecond: 1.25e6 })).toBe("3.1 of 6.5 MB, 1.3 MB/s");
    expect(describeDownload({ loaded: 3.14e6, total: 0, bytesPerSecond: 0 })).toBe("3.1 MB");
  });
});
