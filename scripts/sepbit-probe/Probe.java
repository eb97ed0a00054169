package gcsimulator;

import gcsimulator.iorequest.AliIORequest;
import java.io.*;

// For scripts/sepbit-probe.sh (ftlsim, issue 29): replays an Alibaba CSV
// through SepBIT's own Log with GC off and writes, for every user block
// write in order, the id of the segment it went to. Arguments: CSV,
// placement, open segments, segment bytes, largest byte address, scratch
// folder (with segments/ and indexmap/), output file. Compiled against
// SepBIT's trace_replay classes; in package gcsimulator for Log's
// package-private parts.
public class Probe {
  public static void main(String[] a) throws Exception {
    Configs.separateMethod = a[1];
    Configs.numOpenSegments = Integer.parseInt(a[2]);
    Configs.SEGMENT_SIZE = Long.parseLong(a[3]);
    Configs.volumeWSS.put("0", 1L);
    Configs.volumeMaxLba.put("0", Long.parseLong(a[4]));
    Configs.outputPrefix = a[5];
    Configs.indexMapType = "PureInMem";
    Configs.indexMapCache = "Null";
    Configs.printGCInfo = false;
    PrintStream realOut = System.out;
    System.setOut(new PrintStream(new OutputStream() { public void write(int b) {} }));
    PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(a[6])));
    BufferedReader r = new BufferedReader(new FileReader(a[0]));
    Log log = null;
    String line;
    while ((line = r.readLine()) != null) {
      AliIORequest req = new AliIORequest(line);
      if (!req.isWrite()) continue;
      Simulator.globalTimestampInUs = req.timestampInUs;
      if (Simulator.startTimestampInUs == 0) Simulator.startTimestampInUs = req.timestampInUs;
      if (log == null) log = new Log("0", req.timestampInUs);
      long lba = req.getLBA(), len = req.getLength();
      log.appendRequest(lba, len, req.timestampInUs);
      for (long i = 0; i < len; i++) {
        long off = log.getIndexMap().get(lba + i);
        Segment s = log.segments.get(off / Configs.getSegmentMaxLen());
        out.println(s.getSegmentId());
      }
    }
    out.close();
    System.setOut(realOut);
  }
}
