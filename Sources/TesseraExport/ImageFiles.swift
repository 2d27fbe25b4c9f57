import CGIF
import CPNG
import FoundationEssentials
import TesseraCore

/// Board frames as image files, through libpng and giflib: live cells black on white;
/// cells of more states in a colour each (`StatePalette`).
package enum ImageFiles {
    /// Pixels of state numbers, `scale`×`scale` per dot of `dots` (`width` a row).
    static func statePixels(_ dots: [UInt8], width: Int, scale: Int) -> [UInt8] {
        let height = dots.count / max(1, width), rowWidth = width * scale
        var pixels = [UInt8](repeating: 0, count: rowWidth * height * scale)
        for y in 0..<height {
            for x in 0..<width where dots[y * width + x] != 0 {
                for dy in 0..<scale {
                    let row = (y * scale + dy) * rowWidth + x * scale
                    for dx in 0..<scale { pixels[row + dx] = dots[y * width + x] }
                }
            }
        }
        return pixels
    }

    /// A PNG of dots in states (`Universe.stateFrame`), in `StatePalette`'s colours.
    package static func writePNG(states dots: [UInt8], width: Int, states: Int, scale: Int = 1, to path: String) throws {
        let colours = StatePalette.colours(states: min(states, 256))
        var rgb: [UInt8] = []
        rgb.reserveCapacity(dots.count * 3 * scale * scale)
        for state in statePixels(dots, width: width, scale: scale) {
            let colour = colours[min(Int(state), colours.count - 1)]
            rgb.append(colour.0)
            rgb.append(colour.1)
            rgb.append(colour.2)
        }
        try write(pixels: rgb, format: UInt32(PNG_FORMAT_RGB), width: width * scale, height: dots.count / max(1, width) * scale, to: path)
    }

    /// 8-bit grey pixels, `scale`×`scale` per dot.
    static func pixels(_ dots: BitGrid, scale: Int) -> [UInt8] {
        let width = dots.width * scale
        var pixels = [UInt8](repeating: 255, count: width * dots.height * scale)
        for y in 0..<dots.height {
            for x in 0..<dots.width where dots[x, y] {
                for dy in 0..<scale {
                    let row = (y * scale + dy) * width + x * scale
                    for dx in 0..<scale { pixels[row + dx] = 0 }
                }
            }
        }
        return pixels
    }

    /// Writes one PNG (atomically). libpng encodes it in memory and the file gets the
    /// bytes through `AtomicFile`, which names the system's reason when a write fails
    /// ("No space left on device"; libpng's own file writer says only "Write Error").
    package static func writePNG(_ dots: BitGrid, scale: Int = 1, to path: String) throws {
        try write(pixels: pixels(dots, scale: scale), format: UInt32(PNG_FORMAT_GRAY), width: dots.width * scale,
                  height: dots.height * scale, to: path)
    }

    private static func write(pixels: [UInt8], format: UInt32, width: Int, height: Int, to path: String) throws {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = format
        // Deflate's worst case is the raw rows (a filter byte each) and a little; a
        // first guess too small is answered with the size needed.
        var size = png_alloc_size_t(pixels.count + height + pixels.count / 64 + 4096)
        var bytes: [UInt8] = []
        var ok: Int32 = 0
        for _ in 0..<2 where ok == 0 {
            bytes = [UInt8](repeating: 0, count: Int(size))
            ok = pixels.withUnsafeBytes { raw in
                bytes.withUnsafeMutableBytes { png_image_write_to_memory(&image, $0.baseAddress, &size, 0, raw.baseAddress, 0, nil) }
            }
            if ok == 0 && size <= bytes.count { break }
        }
        let reason = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        png_image_free(&image)
        guard ok != 0 else { throw TesseraError("cannot make \(path) a PNG: \(reason)") }
        bytes.removeSubrange(Int(size)...)
        let file = try AtomicFile(path)
        try file.write(bytes)
        try file.commit()
    }
}

/// An animated GIF written frame by frame, renamed into place when finished.
package final class GIFAnimation {
    private let path: String
    /// The file giflib writes by name, renamed into place by `finish()`.
    private let target: AtomicFile
    private var file: UnsafeMutablePointer<GifFileType>?
    private let width: Int, height: Int, scale: Int
    private let delay: Int

    /// - Parameter delay: hundredths of a second per frame.
    package init(path: String, width: Int, height: Int, scale: Int = 1, delay: Int = 5) throws {
        self.path = path
        target = try AtomicFile(path)
        self.width = width
        self.height = height
        self.scale = scale
        self.delay = delay
        var error: Int32 = 0
        guard let file = EGifOpenFileName(target.temporaryPath, false, &error) else {
            throw TesseraError("cannot create \(path): \(String(cString: GifErrorString(error)))", fix: "check the folder")
        }
        self.file = file
        EGifSetGifVersion(file, true)
        var colors = [GifColorType(Red: 255, Green: 255, Blue: 255), GifColorType(Red: 0, Green: 0, Blue: 0)]
        let map = GifMakeMapObject(2, &colors)
        defer { GifFreeMapObject(map) }
        guard EGifPutScreenDesc(file, Int32(width * scale), Int32(height * scale), 1, 0, map) == GIF_OK else {
            throw failure("screen descriptor")
        }
        // Loop forever (the NETSCAPE2.0 application extension).
        var application = Array("NETSCAPE2.0".utf8)
        var loop: [UInt8] = [1, 0, 0]
        guard EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE) == GIF_OK,
              EGifPutExtensionBlock(file, 11, &application) == GIF_OK,
              EGifPutExtensionBlock(file, 3, &loop) == GIF_OK,
              EGifPutExtensionTrailer(file) == GIF_OK
        else { throw failure("loop extension") }
    }

    private func failure(_ what: String) -> TesseraError {
        TesseraError("cannot write \(path) (\(what))", fix: "check the disk and the folder")
    }

    /// Adds a frame: `dots`, or where given, the same dots in their states, in
    /// `StatePalette.colours(states:)`'s colours (a colour map of the frame's own).
    package func add(_ dots: BitGrid, states: (dots: [UInt8], states: Int)? = nil) throws {
        guard let file else { throw failure("already finished") }
        var control: [UInt8] = [0, UInt8(delay & 0xFF), UInt8(delay >> 8), 0]
        var pixels: [GifPixelType]
        var map: UnsafeMutablePointer<ColorMapObject>? = nil
        defer { if map != nil { GifFreeMapObject(map) } }
        if let states {
            // A colour map's size is a power of two, 256 at most.
            var colours = StatePalette.colours(states: min(states.states, 256)).map { GifColorType(Red: $0.0, Green: $0.1, Blue: $0.2) }
            var size = 2
            while size < colours.count { size *= 2 }
            colours += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - colours.count)
            map = GifMakeMapObject(Int32(size), &colours)
            pixels = ImageFiles.statePixels(states.dots, width: width, scale: scale)
        } else {
            pixels = ImageFiles.pixels(dots, scale: scale).map { $0 == 0 ? GifPixelType(1) : GifPixelType(0) }
        }
        guard EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, 4, &control) == GIF_OK,
              EGifPutImageDesc(file, 0, 0, Int32(width * scale), Int32(height * scale), false, map) == GIF_OK
        else { throw failure("frame header") }
        let rowWidth = width * scale
        for row in 0..<(height * scale) {
            let ok = pixels.withUnsafeMutableBufferPointer {
                EGifPutLine(file, $0.baseAddress! + row * rowWidth, Int32(rowWidth))
            }
            guard ok == GIF_OK else { throw failure("frame row") }
        }
    }

    /// Closes the file and moves it into place.
    package func finish() throws {
        guard let file else { return }
        self.file = nil
        var error: Int32 = 0
        guard EGifCloseFile(file, &error) == GIF_OK else { throw failure("close") }
        try target.commit()
    }

    /// An unfinished animation is closed and its temporary file removed (by `target`).
    deinit {
        if let file {
            var error: Int32 = 0
            EGifCloseFile(file, &error)
        }
    }
}
