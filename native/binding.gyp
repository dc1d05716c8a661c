{
  "targets": [
    {
      "target_name": "encoderd",
      "sources": ["<!@(ls -1 src/*.c src/elements/*.c | grep -v '/plugin-entry.c$')"],
      "cflags": ["-O2", "-Wall", "-Wno-unused-parameter", "-std=gnu11", "<!@(pkg-config --cflags gstreamer-1.0 gstreamer-app-1.0 gstreamer-rtp-1.0 gstreamer-audio-1.0 gstreamer-video-1.0 gstreamer-rtsp-server-1.0 codec2)"],
      "libraries": ["<!@(pkg-config --libs gstreamer-1.0 gstreamer-app-1.0 gstreamer-rtp-1.0 gstreamer-audio-1.0 gstreamer-video-1.0 gstreamer-rtsp-server-1.0 codec2)"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
