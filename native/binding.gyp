{
  "variables": {
    "gst_modules": "gstreamer-1.0 gstreamer-app-1.0 gstreamer-rtp-1.0 gstreamer-audio-1.0 gstreamer-video-1.0 gstreamer-rtsp-server-1.0 codec2",
    "gst_core_sources": [
      "src/gst-core.c",
      "src/messages.c",
      "src/rtsp-feed.c",
      "src/rtsp-preroll.c",
      "src/rtsp-server.c",
      "src/rtsp-unwatched.c",
      "src/stats-core.c",
      "src/value-core.c"
    ],
    "element_sources": [
      "src/elements/av1-obu.c",
      "src/elements/codec2-modes.c",
      "src/elements/codec2dec.c",
      "src/elements/codec2enc.c",
      "src/elements/dtsguard.c",
      "src/elements/elements.c",
      "src/elements/rtpav1depay.c",
      "src/elements/rtpav1pay.c",
      "src/elements/rtpcodec2depay.c",
      "src/elements/rtpcodec2pay.c"
    ],
    "gst_plugin_sources": [
      "src/elements/plugin-entry.c"
    ],
    "host_sources": [
      "host/channel.c",
      "host/commands.c",
      "host/companions.c",
      "host/events.c",
      "host/host-rtsp.c",
      "host/host-stats.c",
      "host/klv-pacer.c",
      "host/main.c",
      "host/pipe.c",
      "host/play.c",
      "host/probe.c",
      "host/title.c"
    ],
    "test_addon_sources": [
      "test-addon/fake-cameras.c",
      "test-addon/fake-camera-provider.c"
    ],
    "test_host_faults_sources": [
      "test-host-faults/host-faults.c"
    ],
    "test_x265_reopen_sources": [
      "test-x265-reopen/x265-reopen.c"
    ],
    "test_crash_element_sources": [
      "test-crash-element/segv.c"
    ]
  },
  "targets": [
    {
      "target_name": "encoderd",
      "sources": [
        "src/addon.c",
        "src/devices.c",
        "src/memory.c",
        "src/pipeline-messages.c",
        "src/pipeline.c",
        "src/rtsp.c",
        "src/stats.c",
        "src/v8-memory.cc",
        "src/value.c",
        "<@(gst_core_sources)",
        "<@(element_sources)"
      ],
      "cflags": [
        "-O2",
        "-Wall",
        "-Wno-unused-parameter",
        "<!@(pkg-config --cflags <(gst_modules))"
      ],
      "cflags_c": [
        "-std=gnu11"
      ],
      "libraries": [
        "<!@(pkg-config --libs <(gst_modules))"
      ],
      "defines": [
        "NAPI_VERSION=8"
      ]
    }
  ]
}
