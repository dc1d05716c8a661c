// The test-only fake camera addon (native/test-addon/README.md). ENCODERD_FAKE_CAMERA_ADDON names another build of it.
const { join } = require('node:path');
module.exports = require(process.env.ENCODERD_FAKE_CAMERA_ADDON || join(__dirname, '../build/test/encoderd-fake-cameras.node'));
