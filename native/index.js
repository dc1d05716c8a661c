// The whole loader: node-gyp-build finds build/Release or a prebuild for this platform.
module.exports = require('node-gyp-build')(__dirname);
