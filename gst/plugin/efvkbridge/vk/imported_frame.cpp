// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/imported_frame.hpp"

#include <gst/allocators/allocators.h>

#include <utility>

namespace ef::vk {

ImportedFrame::ImportedFrame(ImportedFrame &&other) noexcept
    : device_(std::move(other.device_)),
      memories_(std::move(other.memories_)),
      planes_(std::exchange(other.planes_, {})),
      path_(other.path_),
      gate_(std::move(other.gate_)),
      uses_(other.uses_.load()) {}

ImportedFrame::~ImportedFrame() {
  for (const PlaneImage &p : planes_)
    if (p.image)
      vkDestroyImage(device_->device(), p.image, nullptr);
}

SlotRelease ImportedFrame::next_use() const {
  return SlotRelease(gate_, uses_.fetch_add(1) + 1);
}

void record_to_general(VkCommandBuffer cmd, const std::vector<::VkImage> &images,
                       VkImageLayout old_layout) {
  std::vector<VkImageMemoryBarrier> barriers;
  for (::VkImage image : images) {
    VkImageMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = 0;
    b.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    b.oldLayout = old_layout;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    barriers.push_back(b);
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       0, 0, nullptr, 0, nullptr, uint32_t(barriers.size()), barriers.data());
}

namespace {

// An fd by its fd; system memory by its allocation's address, whole.
Result<ImportedMemory> import_memory(const std::shared_ptr<Device> &device, GstMemory *mem) {
  if (gst_is_fd_memory(mem))
    return ImportedMemory::import_fd(device, gst_fd_memory_get_fd(mem));
  GstMapInfo map;
  if (!gst_memory_map(mem, &map, GST_MAP_READ))
    return Error{EINVAL, "the memory cannot be mapped"};
  guint8 *base = map.data - mem->offset;
  gst_memory_unmap(mem, &map);
  // Whole pages only, and only those inside the allocation (its maxsize
  // includes the alignment slack).
  const VkDeviceSize align = device->host_import_alignment();
  return ImportedMemory::import_host(device, base, mem->maxsize / align * align);
}

}  // namespace

Result<ImportedFrame> ImportedFrame::create(std::shared_ptr<Device> device, GstBuffer *buffer,
                                            const gst::FrameLayout &layout,
                                            const FormatLayout &format, uint64_t timeout_ns) {
  ImportedFrame f;
  f.device_ = device;
  VkDevice dev = device->device();
  // One import per memory, shared by the planes lying in it.
  std::vector<int> memory_of_plane(layout.n_planes, -1);
  std::vector<guint> imported_memories;
  for (guint p = 0; p < layout.n_planes; ++p) {
    const guint mem = layout.planes[p].memory;
    for (size_t i = 0; i < imported_memories.size(); ++i)
      if (imported_memories[i] == mem)
        memory_of_plane[p] = int(i);
    if (memory_of_plane[p] >= 0)
      continue;
    auto imported = import_memory(device, gst_buffer_peek_memory(buffer, mem));
    if (!imported)
      return imported.error();
    if (!f.memories_.empty() && imported->path() != f.memories_.front().path())
      return Error{ENOTSUP, "the frame's memories import by different paths"};
    f.path_ = imported->path();
    memory_of_plane[p] = int(f.memories_.size());
    f.memories_.push_back(std::move(imported).value());
    imported_memories.push_back(mem);
  }

  for (guint p = 0; p < layout.n_planes; ++p) {
    const PlaneFormat &pf = format.planes[p];
    const uint32_t stride = uint32_t(GST_VIDEO_INFO_PLANE_STRIDE(&layout.info, p));
    const VkExtent2D extent = plane_extent(layout.info, p);
    if (stride % pf.bytes_per_texel != 0)
      return Error{ENOTSUP, "plane " + std::to_string(p) + ": stride " + std::to_string(stride) +
                                " is not a whole number of texels"};
    const ImportedMemory &memory = f.memories_[memory_of_plane[p]];
    const VkImageUsageFlags usage =
        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    if (!device->image_importable(pf.format, usage, memory.handle_type()))
      return Error{ENOTSUP,
                   std::string("the driver cannot bind ") + import_path_name(memory.path()) +
                       " memory to a LINEAR image of plane " + std::to_string(p) + "'s format"};
    VkExternalMemoryImageCreateInfo external{};
    external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
    external.handleTypes = memory.handle_type();
    VkImageCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ici.pNext = &external;
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = pf.format;
    ici.extent = {stride / pf.bytes_per_texel, extent.height, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_LINEAR;
    ici.usage = usage;
    ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    PlaneImage plane;
    plane.extent = extent;
    plane.row_pitch = stride;
    if (VkResult r = vkCreateImage(dev, &ici, nullptr, &plane.image); r != VK_SUCCESS)
      return vk_error("vkCreateImage (plane " + std::to_string(p) + ")", r);
    f.planes_.push_back(plane);
    VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout sl{};
    vkGetImageSubresourceLayout(dev, plane.image, &sub, &sl);
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(dev, plane.image, &req);
    const VkDeviceSize offset = layout.planes[p].offset;
    if (sl.rowPitch != stride || sl.offset != 0)
      return Error{ENOTSUP, "plane " + std::to_string(p) + ": the driver lays a LINEAR image " +
                                std::to_string(ici.extent.width) + " texels wide out with pitch " +
                                std::to_string(sl.rowPitch) + ", the frame has stride " +
                                std::to_string(stride)};
    if (offset % req.alignment != 0 || offset + req.size > memory.size())
      return Error{ENOTSUP, "plane " + std::to_string(p) + " at offset " + std::to_string(offset) +
                                " does not fit the image's memory requirements (size " +
                                std::to_string(req.size) + ", alignment " +
                                std::to_string(req.alignment) + ")"};
    if (!(req.memoryTypeBits & (1u << memory.type_index())))
      return Error{ENOTSUP, "plane " + std::to_string(p) +
                                ": the imported memory's type does not suit the image"};
    if (VkResult r = vkBindImageMemory(dev, plane.image, memory.memory(), offset); r != VK_SUCCESS)
      return vk_error("vkBindImageMemory (plane " + std::to_string(p) + ")", r);
  }

  std::vector<::VkImage> images;
  for (const PlaneImage &p : f.planes_)
    images.push_back(p.image);
  auto ran = device->run_commands(
      [&](VkCommandBuffer cmd) { record_to_general(cmd, images, VK_IMAGE_LAYOUT_UNDEFINED); },
      timeout_ns);
  if (!ran)
    return ran.error();
  return f;
}

}  // namespace ef::vk
