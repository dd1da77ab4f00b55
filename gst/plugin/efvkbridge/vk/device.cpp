// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/device.hpp"

#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

namespace ef::vk {

namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool has_extension(const std::vector<VkExtensionProperties> &list, const char *name) {
  for (const auto &e : list)
    if (std::strcmp(e.extensionName, name) == 0)
      return true;
  return false;
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice physical) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> list(n);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, list.data());
  return list;
}

bool layer_present(const char *name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto &l : layers)
    if (std::strcmp(l.layerName, name) == 0)
      return true;
  return false;
}

DeviceUuid uuid_of(VkPhysicalDevice physical, std::string *name) {
  VkPhysicalDeviceIDProperties id{};
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &id;
  vkGetPhysicalDeviceProperties2(physical, &props);
  if (name)
    *name = props.properties.deviceName;
  DeviceUuid uuid;
  std::memcpy(uuid.data(), id.deviceUUID, uuid.size());
  return uuid;
}

std::optional<uint32_t> transfer_queue_family(VkPhysicalDevice physical) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, families.data());
  for (uint32_t i = 0; i < n; ++i)
    if (families[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
      return i;
  return std::nullopt;
}

// Own devices by serial, for contexts that name one.
struct Registry {
  std::mutex mutex;
  uint64_t last = 0;
  std::map<uint64_t, std::weak_ptr<Device>> devices;
};

Registry &registry() {
  static Registry *r = new Registry();  // never destroyed: devices may outlive main()
  return *r;
}

// What can be checked of an application's handles without trusting them
// further: the physical device is its instance's, the queue exists. (A
// destroyed instance cannot be told from a live one: the application keeps
// its device alive while an element uses it, docs/VKBRIDGE.md.)
Result<void> check_handles(VkInstance instance, VkPhysicalDevice physical,
                           const GstEfVulkanDevice &shared) {
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  if (std::find(devices.begin(), devices.end(), physical) == devices.end())
    return Error{EINVAL, "the context's physical device is not one of its instance's"};
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
  if (shared.queue_family >= families ||
      shared.queue_index >= props[shared.queue_family].queueCount)
    return Error{EINVAL, "the context's queue (family " + std::to_string(shared.queue_family) +
                             ", index " + std::to_string(shared.queue_index) +
                             ") does not exist on its physical device"};
  return {};
}

// "0: llvmpipe (LLVM 15.0.6, 256 bits), device-uuid 6d65...; 1: ...": what
// device-index and device-uuid may name.
std::string describe_devices(const std::vector<VkPhysicalDevice> &devices) {
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string name;
    const DeviceUuid uuid = uuid_of(devices[i], &name);
    text += (i ? "; " : "") + std::to_string(i) + ": " + name + ", device-uuid " +
            device_uuid_text(uuid);
  }
  return text;
}

}  // namespace

std::string device_uuid_text(const DeviceUuid &uuid) {
  char text[33];
  for (size_t i = 0; i < uuid.size(); ++i)
    std::snprintf(text + 2 * i, 3, "%02x", uuid[i]);
  return text;
}

std::shared_ptr<Device> Device::find(uint64_t serial) {
  Registry &r = registry();
  std::lock_guard l(r.mutex);
  auto it = r.devices.find(serial);
  return it == r.devices.end() ? nullptr : it->second.lock();
}

const char *result_text(VkResult r) {
  switch (r) {
#define EF_VK_CASE(x) \
  case x:             \
    return #x;
    EF_VK_CASE(VK_SUCCESS)
    EF_VK_CASE(VK_NOT_READY)
    EF_VK_CASE(VK_TIMEOUT)
    EF_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    EF_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    EF_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    EF_VK_CASE(VK_ERROR_DEVICE_LOST)
    EF_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    EF_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    EF_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    EF_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    EF_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    EF_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
#undef EF_VK_CASE
    default:
      return "VkResult error";
  }
}

Error vk_error(const std::string &what, VkResult r) {
  return Error{r == VK_TIMEOUT ? ETIMEDOUT : EIO,
               what + ": " + result_text(r) + " (" + std::to_string(int(r)) + ")"};
}

VkBool32 VKAPI_PTR Device::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                      VkDebugUtilsMessageTypeFlagsEXT,
                                      const VkDebugUtilsMessengerCallbackDataEXT *data,
                                      void *user) {
  auto *self = static_cast<Device *>(user);
  if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                  VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    self->validation_messages_.fetch_add(1);
    GST_ERROR("Vulkan validation: %s", data->pMessage);
  } else {
    GST_LOG("Vulkan: %s", data->pMessage);
  }
  return VK_FALSE;
}

Result<std::shared_ptr<Device>> Device::create(const DeviceChoice &choice) {
  std::shared_ptr<Device> d(new Device());
  d->owned_ = true;
  g_mutex_init(&d->own_lock_);
  d->queue_lock_ = &d->own_lock_;

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "efvkbridge";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char *> layers, extensions;
  const bool validate = choice.validation && layer_present(kValidationLayer);
  if (choice.validation && !validate)
    GST_WARNING("%s requested but not installed", kValidationLayer);
  if (validate) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkDebugUtilsMessengerCreateInfoEXT messenger{};
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType =
      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  messenger.pUserData = d.get();
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pNext = validate ? &messenger : nullptr;  // also covers instance creation
  ici.pApplicationInfo = &app;
  ici.enabledLayerCount = uint32_t(layers.size());
  ici.ppEnabledLayerNames = layers.data();
  ici.enabledExtensionCount = uint32_t(extensions.size());
  ici.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateInstance(&ici, nullptr, &d->instance_); r != VK_SUCCESS)
    return vk_error("vkCreateInstance", r);
  if (validate) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create_messenger)
      create_messenger(d->instance_, &messenger, nullptr, &d->messenger_);
  }

  uint32_t n = 0;
  vkEnumeratePhysicalDevices(d->instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(d->instance_, &n, devices.data());
  if (devices.empty())
    return Error{ENODEV, "no Vulkan device is present"};
  for (uint32_t i = 0; i < n && !d->physical_; ++i) {
    if (choice.uuid ? uuid_of(devices[i], nullptr) == *choice.uuid
                    : (choice.index < 0 ? transfer_queue_family(devices[i]).has_value()
                                        : int(i) == choice.index))
      d->physical_ = devices[i];
  }
  if (!d->physical_)
    return Error{
        ENODEV,
        (choice.uuid ? "no Vulkan device has device-uuid " + device_uuid_text(*choice.uuid)
                     : "device-index " + std::to_string(choice.index) + " is out of range") +
            "; present: " + describe_devices(devices)};
  auto family = transfer_queue_family(d->physical_);
  if (!family)
    return Error{ENODEV, "the Vulkan device has no graphics or compute queue"};
  d->queue_family_ = *family;

  auto available = device_extensions(d->physical_);
  std::vector<const char *> wanted;
  for (const char *e :
       {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
        VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME})
    if (has_extension(available, e))
      wanted.push_back(e);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = d->queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v12.timelineSemaphore = VK_TRUE;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.pNext = &v12;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = uint32_t(wanted.size());
  dci.ppEnabledExtensionNames = wanted.data();
  if (VkResult r = vkCreateDevice(d->physical_, &dci, nullptr, &d->device_); r != VK_SUCCESS)
    return vk_error("vkCreateDevice", r);
  if (auto done = d->finish_setup(); !done)
    return done.error();
  Registry &r = registry();
  std::lock_guard l(r.mutex);
  d->serial_ = ++r.last;
  r.devices[d->serial_] = d;
  return d;
}

Result<std::shared_ptr<Device>> Device::borrow(const GstEfVulkanDevice &shared) {
  if (!shared.instance || !shared.physical_device || !shared.device)
    return Error{EINVAL,
                 "the ef.vulkan.device context lacks an instance, physical device or device"};
  std::shared_ptr<Device> d(new Device());
  g_mutex_init(&d->own_lock_);
  d->queue_lock_ = shared.queue_lock ? shared.queue_lock : &d->own_lock_;
  d->instance_ = static_cast<VkInstance>(shared.instance);
  d->physical_ = static_cast<VkPhysicalDevice>(shared.physical_device);
  d->device_ = static_cast<VkDevice>(shared.device);
  d->queue_family_ = shared.queue_family;
  d->queue_index_ = shared.queue_index;
  if (auto matched = check_handles(d->instance_, d->physical_, shared); !matched)
    return matched.error();
  if (auto done = d->finish_setup(); !done)
    return done.error();
  DeviceUuid declared;
  std::memcpy(declared.data(), shared.device_uuid, declared.size());
  if (declared != d->uuid_)
    return Error{EINVAL, "the context's device-uuid is not its physical device's"};
  return d;
}

Result<void> Device::finish_setup() {
  uuid_ = uuid_of(physical_, &name_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  vkGetDeviceQueue(device_, queue_family_, queue_index_, &queue_);
  auto available = device_extensions(physical_);
  has_dma_buf_ = has_extension(available, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
  // Device-level entry points are NULL unless the extension was enabled on
  // the device: that is how a borrowed device tells what it was made with.
  get_memory_fd_properties_ = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
      vkGetDeviceProcAddr(device_, "vkGetMemoryFdPropertiesKHR"));
  if (has_extension(available, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
    get_host_pointer_properties_ = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        vkGetDeviceProcAddr(device_, "vkGetMemoryHostPointerPropertiesEXT"));
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host{};
    host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &host;
    vkGetPhysicalDeviceProperties2(physical_, &props);
    host_alignment_ = std::max<VkDeviceSize>(host.minImportedHostPointerAlignment, 1);
  }

  VkCommandPoolCreateInfo pci{};
  pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family_;
  if (VkResult r = vkCreateCommandPool(device_, &pci, nullptr, &command_pool_); r != VK_SUCCESS)
    return vk_error("vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo cai{};
  cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cai.commandPool = command_pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  if (VkResult r = vkAllocateCommandBuffers(device_, &cai, &commands_); r != VK_SUCCESS)
    return vk_error("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if (VkResult r = vkCreateFence(device_, &fci, nullptr, &fence_); r != VK_SUCCESS)
    return vk_error("vkCreateFence", r);
  GST_INFO("Vulkan device \"%s\" (%s): dma-buf import %s, host-pointer import %s", name_.c_str(),
           owned_ ? "own" : "the application's", dma_buf_import() ? "yes" : "no",
           host_import() ? "yes" : "no");
  return {};
}

Device::~Device() {
  if (serial_) {
    Registry &r = registry();
    std::lock_guard l(r.mutex);
    r.devices.erase(serial_);
  }
  if (device_) {
    // Every submission of ours was waited for; an application's device is
    // not ours to idle (vkDeviceWaitIdle would race its queue submissions).
    if (owned_)
      vkDeviceWaitIdle(device_);
    if (fence_)
      vkDestroyFence(device_, fence_, nullptr);
    if (command_pool_)
      vkDestroyCommandPool(device_, command_pool_, nullptr);
  }
  if (owned_) {
    if (device_)
      vkDestroyDevice(device_, nullptr);
    if (messenger_) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy)
        destroy(instance_, messenger_, nullptr);
    }
    if (instance_)
      vkDestroyInstance(instance_, nullptr);
  }
  g_mutex_clear(&own_lock_);
}

uint32_t Device::dma_buf_memory_types(int fd) const {
  if (!dma_buf_import())
    return 0;
  VkMemoryFdPropertiesKHR props{};
  props.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR;
  if (get_memory_fd_properties_(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd,
                                &props) != VK_SUCCESS)
    return 0;
  return props.memoryTypeBits;
}

uint32_t Device::host_pointer_memory_types(const void *ptr) const {
  if (!host_import())
    return 0;
  VkMemoryHostPointerPropertiesEXT props{};
  props.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  if (get_host_pointer_properties_(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                   ptr, &props) != VK_SUCCESS)
    return 0;
  return props.memoryTypeBits;
}

std::optional<uint32_t> Device::memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const {
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & flags) == flags)
      return i;
  return std::nullopt;
}

bool Device::image_importable(VkFormat format, VkImageUsageFlags usage,
                              VkExternalMemoryHandleTypeFlagBits handle_type) const {
  VkPhysicalDeviceExternalImageFormatInfo external{};
  external.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO;
  external.handleType = handle_type;
  VkPhysicalDeviceImageFormatInfo2 info{};
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2;
  info.pNext = &external;
  info.format = format;
  info.type = VK_IMAGE_TYPE_2D;
  info.tiling = VK_IMAGE_TILING_LINEAR;
  info.usage = usage;
  VkExternalImageFormatProperties external_props{};
  external_props.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES;
  VkImageFormatProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2;
  props.pNext = &external_props;
  if (vkGetPhysicalDeviceImageFormatProperties2(physical_, &info, &props) != VK_SUCCESS)
    return false;
  return external_props.externalMemoryProperties.externalMemoryFeatures &
         VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
}

bool Device::buffer_importable(VkBufferUsageFlags usage,
                               VkExternalMemoryHandleTypeFlagBits handle_type) const {
  VkPhysicalDeviceExternalBufferInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO;
  info.usage = usage;
  info.handleType = handle_type;
  VkExternalBufferProperties props{};
  props.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES;
  vkGetPhysicalDeviceExternalBufferProperties(physical_, &info, &props);
  return props.externalMemoryProperties.externalMemoryFeatures &
         VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
}

Result<void> Device::run_commands(const std::function<void(VkCommandBuffer)> &record,
                                  uint64_t timeout_ns) {
  std::lock_guard lock(commands_mutex_);
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkResetCommandBuffer(commands_, 0);
  if (VkResult r = vkBeginCommandBuffer(commands_, &begin); r != VK_SUCCESS)
    return vk_error("vkBeginCommandBuffer", r);
  record(commands_);
  if (VkResult r = vkEndCommandBuffer(commands_); r != VK_SUCCESS)
    return vk_error("vkEndCommandBuffer", r);
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands_;
  vkResetFences(device_, 1, &fence_);
  g_mutex_lock(queue_lock_);
  VkResult r = vkQueueSubmit(queue_, 1, &submit, fence_);
  g_mutex_unlock(queue_lock_);
  if (r != VK_SUCCESS)
    return vk_error("vkQueueSubmit", r);
  r = vkWaitForFences(device_, 1, &fence_, VK_TRUE, timeout_ns);
  if (r != VK_SUCCESS) {
    // The command buffer may still run: never reset it while pending.
    vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
    return vk_error("waiting for the copy", r);
  }
  return {};
}

GstEfVulkanDevice Device::shared() const {
  GstEfVulkanDevice d{};
  d.instance = instance_;
  d.physical_device = physical_;
  d.device = device_;
  d.queue_family = queue_family_;
  d.queue_index = queue_index_;
  std::memcpy(d.device_uuid, uuid_.data(), uuid_.size());
  d.queue_lock = queue_lock_;
  return d;
}

}  // namespace ef::vk
